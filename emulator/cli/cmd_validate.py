"""``fabemu validate``: check scenario files without running anything."""

from __future__ import annotations

import argparse
from pathlib import Path

from emulator.errors import UserError
from emulator.scenario.load import load_scenario, parse_set
from emulator.scenario.runner import check_runnable

HELP = (
    "validate scenario files (schema, topology, P4 program, routes, workload hosts, "
    "expectations); nothing is started"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Scenario paths and optional overrides."""
    parser.add_argument("scenarios", nargs="+", metavar="SCENARIO")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a key")


def run(args: argparse.Namespace) -> int:
    """Validate each file; report every bad one, exit 2 if any is bad."""
    overrides = parse_set(args.set)
    bad = 0
    for path in args.scenarios:
        try:
            sc = load_scenario(path, overrides)
            check_runnable(sc, Path(path))
        except UserError as exc:
            print(f"INVALID {exc}")
            bad += 1
            continue
        print(f"ok      {path}: {sc.name} ({sc.workload.kind}, lb={sc.switch.lb})")
    return 2 if bad else 0
