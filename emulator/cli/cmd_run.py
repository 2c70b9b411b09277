"""``fabemu run``: run one scenario, print a summary, exit 0 if its expectations hold."""

from __future__ import annotations

import argparse
from pathlib import Path

from emulator.cli.display import console, progress, summary_table
from emulator.errors import UserError
from emulator.faults.twin import add_twin
from emulator.scenario.load import parse_set
from emulator.scenario.runner import run_scenario

HELP = "run a scenario (results, logs and an HTML report go to --out)"


def add_common(parser: argparse.ArgumentParser) -> None:
    """Options shared by run and compare."""
    parser.add_argument("scenario", type=Path, metavar="SCENARIO")
    parser.add_argument("--runtime", choices=("virtual", "mininet"), help="override the scenario's")
    parser.add_argument("--target", choices=("builtin", "bmv2"), help="override the scenario's")
    parser.add_argument(
        "--out", type=Path, help="results directory (default: results/<time>-<name>)"
    )
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="override a scenario key (repeatable)"
    )
    parser.add_argument(
        "--wall-limit",
        type=_positive_seconds,
        metavar="SECONDS",
        help="stop each run after this many wall-clock seconds (partial results kept)",
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"must be above 0 seconds: {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SCENARIO, the common options and --seeds."""
    from emulator.cli.distribution import add_sweep_arguments

    add_common(parser)
    add_sweep_arguments(parser)
    parser.add_argument(
        "--fault-free-twin",
        action="store_true",
        help="also run the scenario without its faults: and report the slowdown",
    )
    parser.add_argument(
        "--no-report",
        action="store_true",
        help="skip report.html and its plots (result.json, metrics.json and run.log are "
        "written; about 0.6-0.8 CPU s less per run: matplotlib is not loaded)",
    )


def run(args: argparse.Namespace) -> int:
    """Run, show the header, the summary and where the results are."""
    overrides = parse_set(args.set)
    if args.seeds:
        if args.no_report:
            raise UserError("--no-report is for one run: over --seeds no per-run report is drawn")
        if getattr(args, "fault_free_twin", False):
            raise UserError(
                "--fault-free-twin is for one run: over --seeds, give the scenario a "
                "'*_nofault' variant (faults: []) and use fabemu compare --seeds, which pairs "
                "each run with its twin (slowdown_vs_nofault; docs/faults.md)"
            )
        return _run_seeds(args, overrides)
    with progress(args.scenario.name) as say:
        outcome = run_scenario(
            args.scenario,
            overrides,
            runtime=args.runtime,
            target=args.target,
            out=args.out,
            progress=say,
            report=not args.no_report,
            wall_limit_s=args.wall_limit,
        )
        if getattr(args, "fault_free_twin", False):
            add_twin(
                outcome,
                args.scenario,
                overrides,
                runtime=args.runtime,
                target=args.target,
                report=not args.no_report,
            )
    meta = outcome.result.meta
    console.print(
        f"[bold]{meta.scenario}[/]: {meta.why}; seed {meta.seed}; wall {meta.wall_s:.1f} s"
    )
    console.print(summary_table([(meta.scenario, outcome)]))
    for verdict in outcome.verdicts:
        console.print(("  [green]✓[/] " if verdict.met else "  [red]✗[/] ") + verdict.describe())
    if not meta.complete:
        console.print(f"[red]run INCOMPLETE[/]: {meta.incomplete_reason}")
    where = "" if args.no_report else f" (report: {outcome.outdir / 'report.html'})"
    console.print(f"results: {outcome.outdir}{where}")
    return outcome.exit_code


def _run_seeds(args: argparse.Namespace, overrides: dict[str, object]) -> int:
    """``fabemu run --seeds``: the scenario once per seed, as a distribution."""
    from emulator.cli.distribution import report_distributions, run_sweep, sweep_requests
    from emulator.scenario.load import load_scenario
    from emulator.scenario.outdir import new_outdir

    load_scenario(args.scenario, overrides)  # validate before starting
    outdir = new_outdir(args.out, f"seeds-{args.scenario.stem}")
    done = run_sweep(args, sweep_requests(args, [], overrides, outdir))
    return report_distributions(done, outdir, f"{args.scenario.stem} over seeds")
