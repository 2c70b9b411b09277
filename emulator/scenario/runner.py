"""Run one scenario end to end and write its results directory.

    scenario YAML ─load─► Scenario ─choose─► Choice ─build_plan─► RunPlan ─► NetworkRuntime ─► RunResult
                            (scenario.choice)     (emulator.plan: topology, P4,    (virtual | mininet)
                                                   control plane, workload, RNICs)

Whatever happens, the results directory gets ``scenario.yaml`` (after overrides),
``result.json`` (marked incomplete on failure or interrupt), ``run.log`` and, when the
report layer is present, ``report.html``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from emulator import __version__
from emulator.errors import UserError
from emulator.faults.session import FaultSession
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.build import build_plan
from emulator.plan.spec import RunPlan
from emulator.scenario.choice import Choice, choose
from emulator.scenario.expect import Verdict, evaluate
from emulator.scenario.interrupts import SigintDeferral, WallLimit
from emulator.scenario.load import load_scenario
from emulator.scenario.outdir import new_outdir
from emulator.scenario.schema import Scenario
from emulator.scenario.training_run import run_step
from emulator.topology import spec_to_dict

log = logging.getLogger("fabemu.run")


@dataclass
class RunOutcome:
    """A finished (or failed) run: its result, metrics, verdicts and where it was written."""

    scenario: Scenario
    result: RunResult
    metrics: dict[str, float]
    verdicts: list[Verdict]
    outdir: Path
    error: str | None = None

    @property
    def passed(self) -> bool:
        """True when the run completed and every expectation was met."""
        return (
            self.error is None and self.result.meta.complete and all(v.met for v in self.verdicts)
        )

    @property
    def exit_code(self) -> int:
        """0 expectations met, 1 not met (or the run failed)."""
        return 0 if self.passed else 1

    def slim(self) -> RunOutcome:
        """This outcome without the result's time series (links, queues, pauses, CTS
        latencies, events): what a distribution over many runs keeps of each.

        The series are nearly all of a result in memory (~8 MB of a flagship run's
        outcome); its ``result.json`` on disk keeps them. Metrics and verdicts were
        computed from the whole result."""
        series: dict[str, list[Any]] = {
            "links": [],
            "queues": [],
            "pauses": [],
            "cts_latency_ns": [],
            "events": [],
        }
        return replace(self, result=self.result.model_copy(update=series))

    def __getattr__(self, name: str) -> float:
        """Metrics as attributes: ``outcome.max_uplink_imbalance``."""
        metrics = self.__dict__.get("metrics", {})
        if name in metrics:
            return metrics[name]
        raise AttributeError(f"no metric or attribute {name!r} (metrics: {sorted(metrics)})")


def check_runnable(sc: Scenario, path: Path) -> None:
    """Build everything a run uses without starting it (what ``fabemu validate`` checks
    beyond the schema): topology, program, control plane, workload hosts."""
    runtime = sc.runtime
    if runtime == "auto":
        runtime = "mininet" if sc.target == "bmv2" else "virtual"
    plan = build_plan(sc, path, runtime, sc.target)
    FaultSession.build(sc, path, plan)  # fault names against the topology


def lb_label(sc: Scenario) -> str:
    """How the fabric balances load, for tables: ``ecmp``.. or ``ib-ftree[-ar]``."""
    if sc.fabric == "ib":
        return f"ib-{sc.ib.routing}" + ("-ar" if sc.ib.adaptive_routing else "")
    return str(sc.switch.lb)


def _drive(
    rt: Any, sc: Scenario, plan: RunPlan, faults: FaultSession | None = None
) -> tuple[bool, dict[str, Any] | None]:
    """Run the workload (or a training step's stages) until done or the deadline."""
    until = int(sc.duration_ms * 1e6)
    assert plan.workload is not None
    if plan.workload.job is not None:
        return run_step(rt, plan.workload.job, until)
    rt.add_workload(plan.workload.mapping)
    if faults is not None:
        return faults.run(rt, until), None
    return rt.run(until_ns=until), None


def _attach_log(outdir: Path) -> logging.Handler:
    handler = logging.FileHandler(outdir / "run.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger("fabemu")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


def run_scenario(
    path: Path | str,
    overrides: Mapping[str, Any] | None = None,
    *,
    runtime: str | None = None,
    target: str | None = None,
    out: Path | str | None = None,
    progress: Callable[[str], None] | None = None,
    report: bool = True,
    wall_limit_s: float | None = None,
) -> RunOutcome:
    """Run the scenario at ``path``; always writes the results directory.

    ``wall_limit_s`` stops the run (like Ctrl-C, partial results kept) after that many
    wall-clock seconds, whatever the scenario's ``duration_ms``.
    """
    path = Path(path)
    sc = load_scenario(path, overrides)
    choice = choose(sc, runtime, target, path)
    meta = RunMeta(
        scenario=sc.name,
        scenario_file=str(path),
        runtime=choice.runtime,
        target=choice.target,
        why=choice.why,
        seed=sc.seed,
        lb=lb_label(sc),
        num_qps=sc.workload.num_qps,
        placement=sc.workload.placement,
        settings=sc.model_dump(mode="json"),
        started_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        fabemu_version=__version__,
    )
    late = SigintDeferral()  # started by _execute once the run stops
    outdir = new_outdir(out or None, sc.name)
    handler: logging.Handler | None = None
    try:
        handler = _attach_log(outdir)
        (outdir / "scenario.yaml").write_text(yaml.safe_dump(sc.model_dump(mode="json")))
        log.info("scenario %s: %s", path, choice.why)
        say = progress or (lambda _msg: None)
        result, error = _execute(sc, path, choice, outdir, meta, say, wall_limit_s, late)
        result.save(outdir / "result.json")  # first, so nothing below can lose it
        try:
            from emulator.scenario.metrics import summary_metrics

            metrics = summary_metrics(result)
        except Exception as exc:
            log.exception("computing summary metrics failed")
            error = error or f"computing summary metrics failed: {exc}"
            metrics = {}
        verdicts = evaluate(sc.expect, metrics)
        outcome = RunOutcome(sc, result, metrics, verdicts, outdir, error)
        save_outcome(outcome, report=report)
    except KeyboardInterrupt:  # before the run started (_execute catches it from there on)
        meta.incomplete_reason = "interrupted"
        RunResult(meta=meta).save(outdir / "result.json")
        raise
    except UserError as exc:  # e.g. the P4 program does not compile: say so in the folder too
        log.error("%s", exc)
        meta.incomplete_reason = f"error: {str(exc).splitlines()[0]}"
        RunResult(meta=meta).save(outdir / "result.json")
        raise
    finally:
        late.stop()
        if handler is not None:
            _detach_log(handler)
    if late.pending:  # a Ctrl-C while results were being saved: they are; now obey it
        raise KeyboardInterrupt
    return outcome


def _execute(
    sc: Scenario,
    path: Path,
    choice: Choice,
    outdir: Path,
    meta: RunMeta,
    say: Callable[[str], None],
    wall_limit_s: float | None,
    late: SigintDeferral,
) -> tuple[RunResult, str | None]:
    """Prepare, start and run; whatever happens, stop the runtime and return what it has."""
    t0 = time.monotonic()
    result: RunResult | None = None
    error: str | None = None
    rt = None
    limit = WallLimit(wall_limit_s)
    training: dict[str, Any] | None = None
    faults: FaultSession | None = None
    try:
        with limit:
            say("compiling P4 and computing routes")
            plan = build_plan(
                sc,
                path,
                choice.runtime,
                choice.target,
                log_dir=str(outdir / "logs"),
                pcap_dir=str(outdir / "pcaps") if sc.pcap else None,
            )
            meta.topology = spec_to_dict(plan.topo.spec)
            faults = FaultSession.build(sc, path, plan)
            if choice.runtime == "mininet":
                _warn_capacity(meta, plan.topo, choice.target, sc.rnic.mtu, say)
            from emulator.runtime.base import make_runtime

            rt = make_runtime(choice.runtime, plan)
            say(f"starting the {choice.runtime} network")
            rt.start()
            if faults is not None:
                faults.attach(rt)
            say("running the workload")
            done, training = _drive(rt, sc, plan, faults)
            limit.disarm()
        meta.complete = done
        if not done:
            meta.incomplete_reason = f"workload not finished after {sc.duration_ms:g} ms"
    except KeyboardInterrupt:
        error = meta.incomplete_reason = limit.reason() if limit.fired else "interrupted"
        log.warning(error)
    except UserError:
        raise
    except Exception as exc:  # an internal failure: keep what we have, say what broke
        error = meta.incomplete_reason = f"{type(exc).__name__}: {exc}"
        log.exception("run failed")
    finally:
        late.start()  # from here to the saved results, Ctrl-C waits
        meta.wall_s = round(time.monotonic() - t0, 3)
        if rt is not None:
            try:
                result = rt.result(meta)
                if faults is not None and faults.clock is not None:
                    result.faults = faults.section(rt, result)
            except Exception as exc:
                log.exception("collecting results failed")
                error = error or f"collecting results failed: {exc}"
            finally:
                rt.stop()
        if faults is not None:
            faults.close()
    result = result or RunResult(meta=meta)
    result.training = training
    return result, error


def _warn_capacity(
    meta: RunMeta, topo: Any, target: str, mtu: int, say: Callable[[str], None]
) -> None:
    """Say (log, progress, ``meta.why``) when the links outrun the Mininet switches."""
    from emulator.runtime.mininet.capacity import capacity_warning

    note = capacity_warning(topo, target, mtu)
    if note:
        log.warning("%s", note)
        say(f"WARNING: {note}")
        meta.why = f"{meta.why}; WARNING: {note}"


def save_outcome(outcome: RunOutcome, report: bool = True) -> None:
    """Write ``metrics.json`` and (optionally) ``report.html`` beside the saved ``result.json``."""
    outdir = outcome.outdir
    (outdir / "metrics.json").write_text(json.dumps(outcome.metrics, indent=1, sort_keys=True))
    if not report:
        return
    try:
        from emulator.scenario.report import write_run_report

        write_run_report(outdir, outcome.scenario.name, outcome.result, outcome.verdicts)
    except Exception:  # the results are saved; a broken report must not lose them
        log.exception("writing the report failed")


def _detach_log(handler: logging.Handler) -> None:
    logging.getLogger("fabemu").removeHandler(handler)
    handler.close()
