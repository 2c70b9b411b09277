"""``--seeds``: run every (variant, seed) request, then a median [95% CI] table and report."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from emulator.cli.display import console, progress
from emulator.scenario.dist_report import ordered_metrics, write_distribution_report
from emulator.scenario.distributions import METHOD, PROPORTION_METHOD, Summary
from emulator.scenario.runner import RunOutcome
from emulator.scenario.seeds import RunRequest, by_variant, collect, execute, variant_summaries

#: metrics shown in the terminal table (all of them go to runs.json and the report)
SHOWN = (
    "collective_ms",
    "fct_p99_ms",
    "min_flow_gbps",
    "max_uplink_imbalance",
    "flows_sharing_uplink",
    "p_no_collision",
    "idle_uplinks",
    "pause_frames",
    "drops",
    "completed",
)


def add_seeds_argument(parser: argparse.ArgumentParser) -> None:
    """``--seeds N | A-B | A,B,C``."""
    parser.add_argument(
        "--seeds",
        metavar="N|A-B",
        help="run each variant for seeds 1..N (or A..B, or a list A,B,C) and report "
        "median and 95%% CI per metric",
    )


def distribution_table(summaries: dict[str, dict[str, Summary]]) -> Table:
    """Metrics (rows) by variant (columns): ``median [low, high]``."""
    table = Table(title="median [95% CI] over seeds")
    table.add_column("metric")
    for label in summaries:
        table.add_column(label, justify="right")
    present = {m for s in summaries.values() for m in s}
    for name in [m for m in SHOWN if m in present]:
        table.add_row(name, *(s[name].describe() if name in s else "-" for s in summaries.values()))
    return table


def run_requests(
    args: argparse.Namespace, requests: Sequence[RunRequest], outdir: Path, title: str
) -> int:
    """Run ``requests`` one after another, then print, save and report the distributions."""
    done: list[tuple[RunRequest, RunOutcome]] = []
    for i, req in enumerate(requests, start=1):
        with progress(f"[{i}/{len(requests)}] {req.label} seed {req.seed}") as say:
            outcome = execute(
                req, args.scenario, outdir, runtime=args.runtime, target=args.target,
                progress=say, report=False, wall_limit_s=args.wall_limit,
            )  # fmt: skip
        done.append((req, outcome))
    groups = by_variant(done)
    summaries = {label: variant_summaries(runs) for label, runs in groups.items()}
    console.print(f"[bold]{title}[/]: {len(done)} runs")
    console.print(distribution_table(summaries))
    console.print(f"{METHOD}; p_no_collision: {PROPORTION_METHOD}")
    collect(done, outdir)
    values = {
        label: {
            m: [o.metrics[m] for _, o in runs if m in o.metrics]
            for m in ordered_metrics({k for _, o in runs for k in o.metrics})
        }
        for label, runs in groups.items()
    }
    try:
        report = write_distribution_report(outdir, title, values, summaries)
        console.print(f"results: {outdir} (runs.json, report: {report})")
    except Exception as exc:  # the runs are saved; a broken report must not hide them
        console.print(f"results: {outdir} (report failed: {type(exc).__name__}: {exc})")
    return 0 if all(o.passed for _, o in done) else 1
