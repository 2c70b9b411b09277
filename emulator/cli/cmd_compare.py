"""``fabemu compare``: the same scenario across variants, side by side."""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from emulator.cli.cmd_run import add_common
from emulator.cli.display import console, summary_table
from emulator.cli.distribution import (
    add_sweep_arguments,
    report_distributions,
    run_sweep,
    sweep_requests,
)
from emulator.errors import UserError
from emulator.scenario.load import ALIASES, load_scenario, parse_set
from emulator.scenario.outdir import new_outdir

HELP = (
    "run a scenario once per variant (--vary lb=ecmp,eecmp, or the scenario's own "
    "'variants:') and compare the results"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SCENARIO, --vary (repeatable) and the common options."""
    add_common(parser)
    add_sweep_arguments(parser)
    parser.add_argument(
        "--vary",
        action="append",
        metavar="KEY=V1,V2",
        help="a key and its values; several --vary give every combination; "
        "variant=NAME,.. picks the scenario's named variants (default: all of them)",
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


def _overrides(combo: dict[str, str], named: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``--vary`` values as overrides; ``variant=NAME`` expands to that variant's keys."""
    out: dict[str, Any] = {}
    for key, value in combo.items():
        if key != "variant":
            out |= parse_set([f"{key}={value}"])
        elif value in named:
            out |= {ALIASES.get(k, k): v for k, v in named[value].items()}
        else:
            raise UserError(f"no variant {value!r} in the scenario (has: {', '.join(named)})")
    return out


def run(args: argparse.Namespace) -> int:
    """Run every variant into its own folder, then a combined table and report."""
    base = parse_set(args.set)
    named = load_scenario(args.scenario, base).variants
    if not args.vary and not named:
        raise UserError("give --vary KEY=V1,V2 (the scenario defines no 'variants:')")
    combos = variants(args.vary or ["variant=" + ",".join(named)])
    for combo in combos:  # validate every variant before starting any
        load_scenario(args.scenario, base | _overrides(combo, named))
    outdir = new_outdir(args.out, f"compare-{args.scenario.stem}")
    labelled = [
        (",".join(f"{k}={v}" for k, v in combo.items()), _overrides(combo, named))
        for combo in combos
    ]
    requests = sweep_requests(args, labelled, base, outdir)
    done = run_sweep(args, requests)
    if args.seeds:
        return report_distributions(done, outdir, f"{args.scenario.stem} over seeds")
    outcomes = [(d.request.label, d.outcome) for d in done if d.outcome is not None]
    failed = len(done) - len(outcomes)
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
