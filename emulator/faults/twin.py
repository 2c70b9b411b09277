"""The fault-free twin: the same scenario, seed and overrides without ``faults:``, run beside
a faulted run so its ``faults`` section can say what the faults cost (``slowdown``).

    fabemu run scenarios/spine_uplink_failure.yaml --fault-free-twin
    -> <out>/fault_free/ (the twin's results); result.json faults.fault_free, faults.slowdown
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from emulator.scenario.expect import evaluate
from emulator.scenario.metrics import summary_metrics
from emulator.scenario.runner import RunOutcome, run_scenario, save_outcome


def workload_ns(result: Any) -> int | None:
    """How long the workload took: the slowest collective, else first flow start to last
    flow end; None when it did not finish."""
    if not result.meta.complete:
        return None
    if result.collectives:
        return int(max(c.time_ns for c in result.collectives))
    if result.flows:
        return max(f.end_ns for f in result.flows) - min(f.start_ns for f in result.flows)
    return None


def add_twin(
    outcome: RunOutcome,
    path: Path | str,
    overrides: Mapping[str, Any],
    *,
    runtime: str | None = None,
    target: str | None = None,
    progress: Callable[[str], None] | None = None,
    report: bool = True,
) -> RunOutcome | None:
    """Run the twin into ``<outdir>/fault_free`` and record it in ``outcome``'s faults
    section (result.json, metrics.json, verdicts, and the report unless not ``report``);
    the twin's outcome, or None when the run had no faults section."""
    section = outcome.result.faults
    if section is None:
        return None
    twin = run_scenario(
        path,
        {**overrides, "faults": []},
        runtime=runtime,
        target=target,
        out=outcome.outdir / "fault_free",
        progress=progress,
        report=False,
    )
    t, t0 = workload_ns(outcome.result), workload_ns(twin.result)
    section["fault_free"] = {
        "workload_ns": t0,
        "retransmissions": int(twin.result.totals.retransmissions),
        "drops": int(twin.result.totals.drops),
        "dir": str(twin.outdir),
    }
    section["workload_ns"] = t
    section["slowdown"] = t / t0 if t and t0 else None
    outcome.result.save(outcome.outdir / "result.json")
    outcome.metrics = summary_metrics(outcome.result)
    # judged again: an expectation on ``slowdown`` has its metric only now
    outcome.verdicts = evaluate(outcome.scenario.expect, outcome.metrics)
    save_outcome(outcome, report=report)
    return twin
