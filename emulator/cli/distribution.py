"""``--seeds``: run every (variant, seed) request, then a median [95% CI] table and report."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table

from emulator.cli.display import console
from emulator.sweep import RunDone, RunRequest, make_executor
from emulator.sweep.progress import run_all

if TYPE_CHECKING:  # scipy and matplotlib come with these: imported when a sweep reports
    from emulator.scenario.distributions import Summary

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
    "time_to_repair_ms",
    "fault_packets_lost",
    "qp_errors",
    "completed",
    "step_ms",
    "slowdown_vs_nofault",
    "dp_ms",
    "cross_zone_bytes_per_step",
)


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    """``--seeds N | A-B | A,B,C``, ``--cluster`` and ``--workers``."""
    parser.add_argument(
        "--seeds",
        metavar="N|A-B",
        help="run each variant for seeds 1..N (or A..B, or a list A,B,C) and report "
        "median and 95%% CI per metric",
    )
    parser.add_argument(
        "--cluster",
        metavar="WHERE",
        help="local (default: a process pool), ray (the cluster at RAY_ADDRESS) or ray://host:port",
    )
    parser.add_argument(
        "--workers", type=int, metavar="N", help="local runs at once (default: cores; 1: serial)"
    )


def sweep_requests(
    args: argparse.Namespace,
    variants: Sequence[tuple[str, Mapping[str, Any]]],
    base: Mapping[str, Any],
    outdir: Path,
) -> list[RunRequest]:
    """Every (variant, seed) run of the command line's scenario, each into its folder."""
    from emulator.scenario.seeds import expand, parse_seeds

    seeds = parse_seeds(args.seeds) if args.seeds else None
    template = RunRequest(
        label="",
        scenario=str(args.scenario),
        out=str(outdir),
        runtime=args.runtime,
        target=args.target,
        report=seeds is None,  # over seeds one distribution report replaces per-run ones
        slim=seeds is not None,  # ... which reads only each run's metrics and verdicts
        wall_limit_s=args.wall_limit,
    )
    return expand(variants, base, seeds, args.scenario.stem, template)


def run_sweep(args: argparse.Namespace, requests: Sequence[RunRequest]) -> list[RunDone]:
    """Run ``requests`` on the executor ``--cluster``/``--workers`` choose; report failures."""
    workers = 1 if args.runtime == "mininet" else args.workers  # one Mininet at a time
    done = run_all(make_executor(args.cluster, workers), requests, console)
    for d in done:
        if d.outcome is None:
            console.print(f"[red]run {d.request.label} failed[/]: {d.error} ({d.request.out})")
    return done


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


def report_distributions(done: Sequence[RunDone], outdir: Path, title: str) -> int:
    """Print, save (runs.json) and report the distributions of the finished runs."""
    from emulator.scenario.dist_report import ordered_metrics, write_distribution_report
    from emulator.scenario.distributions import METHOD, PROPORTION_METHOD
    from emulator.scenario.paired import METRIC, paired_slowdowns
    from emulator.scenario.seeds import by_variant, collect, variant_summaries

    finished = [(d.request, d.outcome) for d in done if d.outcome is not None]
    if not finished:
        return 1
    groups = by_variant(finished)
    summaries = {label: variant_summaries(runs) for label, runs in groups.items()}
    for label, slowdown in paired_slowdowns(groups).items():
        summaries[label][METRIC] = slowdown
    console.print(f"[bold]{title}[/]: {len(finished)} of {len(done)} runs finished")
    console.print(distribution_table(summaries))
    console.print(f"{METHOD}; p_no_collision: {PROPORTION_METHOD}")
    collect(finished, outdir)
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
    return 0 if len(finished) == len(done) and all(o.passed for _, o in finished) else 1
