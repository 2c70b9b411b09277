"""Terminal output shared by ``fabemu run`` and ``fabemu compare`` (rich tables, progress)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from emulator.scenario.runner import RunOutcome

console = Console()

#: metrics shown in summary tables, in this order, when the run has them
SHOWN = (
    "completed",
    "step_ms",
    "tp_ms",
    "cp_ms",
    "pp_ms",
    "dp_ms",
    "exposed_comm_ms",
    "cross_zone_bytes_per_step",
    "max_uplink_imbalance",
    "idle_uplinks",
    "min_flow_gbps",
    "max_flow_gbps",
    "fct_p99_ms",
    "collective_ms",
    "busbw_gbps",
    "cts_p99_latency_us",
    "pause_frames",
    "credit_stall_ms",
    "ecn_marks",
    "drops",
    "retransmissions",
    "time_to_detect_ms",
    "time_to_repair_ms",
    "fault_packets_lost",
    "qp_errors",
    "icrc_errors",
    "slowdown",
    "conservation_ok",
)


@contextmanager
def progress(label: str) -> Iterator[Callable[[str], None]]:
    """A spinner with elapsed time; yields a callback that updates its text."""
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
    ) as bar:
        task = bar.add_task(label)
        yield lambda msg: bar.update(task, description=f"{label}: {msg}")


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def summary_table(outcomes: Sequence[tuple[str, RunOutcome]]) -> Table:
    """Metrics side by side (one column per run) and each run's expectations."""
    table = Table(title="summary")
    table.add_column("metric")
    for label, _ in outcomes:
        table.add_column(label, justify="right")
    names = [m for m in SHOWN if any(m in o.metrics for _, o in outcomes)]
    for name in names:
        table.add_row(name, *(_fmt(o.metrics.get(name)) for _, o in outcomes))
    exp = sorted({v.metric for _, o in outcomes for v in o.verdicts})
    for name in exp:
        cells = []
        for _, o in outcomes:
            v = next((v for v in o.verdicts if v.metric == name), None)
            cells.append("-" if v is None else ("[green]met[/]" if v.met else "[red]NOT met[/]"))
        table.add_row(f"expect {name}", *cells)
    table.add_row(
        "status",
        *(
            "[green]ok[/]"
            if o.passed
            else f"[red]{o.error or o.result.meta.incomplete_reason or 'failed'}[/]"
            for _, o in outcomes
        ),
    )
    return table
