"""``fabemu compare``: the same scenario across variants, side by side."""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
from pathlib import Path

from emulator.cli.cmd_run import add_common
from emulator.cli.display import console, summary_table
from emulator.errors import UserError
from emulator.scenario.load import load_scenario, parse_set
from emulator.sweep import RunRequest, make_executor
from emulator.sweep.progress import run_all

HELP = "run a scenario once per variant (--vary lb=ecmp,eecmp) and compare the results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SCENARIO, --vary (repeatable) and the common options."""
    add_common(parser)
    parser.add_argument(
        "--vary",
        action="append",
        required=True,
        metavar="KEY=V1,V2",
        help="a key and its values; several --vary give every combination",
    )
    parser.add_argument(
        "--cluster",
        metavar="WHERE",
        help="local (default: a process pool), ray (the cluster at RAY_ADDRESS) or ray://host:port",
    )
    parser.add_argument(
        "--workers", type=int, metavar="N", help="local runs at once (default: cores; 1: serial)"
    )


def variants(items: list[str]) -> list[dict[str, str]]:
    """Every combination of the ``--vary`` values, as ``key=value`` override lists."""
    axes = []
    for item in items:
        key, sep, values = item.partition("=")
        vals = [v for v in values.split(",") if v]
        if not sep or not key or not vals:
            raise UserError(f"--vary expects KEY=V1,V2,..., got {item!r}")
        axes.append([(key, v) for v in vals])
    return [dict(combo) for combo in itertools.product(*axes)]


def run(args: argparse.Namespace) -> int:
    """Run every variant into its own folder, then a combined table and report."""
    base = parse_set(args.set)
    combos = variants(args.vary)
    for combo in combos:  # validate every variant before starting any
        load_scenario(args.scenario, base | parse_set([f"{k}={v}" for k, v in combo.items()]))
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = args.out or Path("results") / f"{stamp}-compare-{args.scenario.stem}"
    outdir.mkdir(parents=True, exist_ok=True)
    requests = []
    for combo in combos:
        label = ",".join(f"{k}={v}" for k, v in combo.items())
        overrides = base | parse_set([f"{k}={v}" for k, v in combo.items()])
        sub = outdir / label.replace("=", "-").replace(",", "_")
        requests.append(
            RunRequest(label, str(args.scenario), str(sub), overrides, args.runtime, args.target)
        )
    executor = make_executor(args.cluster, args.workers)
    done = run_all(executor, requests, console)
    outcomes = [(d.request.label, d.outcome) for d in done if d.outcome is not None]
    failed = [d for d in done if d.outcome is None]
    for d in failed:
        console.print(f"[red]run {d.request.label} failed[/]: {d.error} (results: {d.request.out})")
    if not outcomes:
        return 1
    meta = outcomes[0][1].result.meta
    console.print(f"[bold]{meta.scenario}[/]: {meta.why}; seed {meta.seed}")
    console.print(summary_table(outcomes))
    try:
        from emulator.scenario.report import write_report

        report = write_report(
            outdir,
            [(label, o.result) for label, o in outcomes],
            {label: o.verdicts for label, o in outcomes},
            title=f"{meta.scenario}: " + " vs ".join(label for label, _ in outcomes),
        )
        console.print(f"results: {outdir} (report: {report})")
    except Exception as exc:  # the runs are saved; a broken report must not hide them
        console.print(f"results: {outdir} (report failed: {type(exc).__name__}: {exc})")
    return 0 if not failed and all(o.passed for _, o in outcomes) else 1
