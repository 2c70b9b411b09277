"""``fabemu stf PROG.p4|PROG.json TEST.stf``: run a p4c STF test on the built-in target."""

from __future__ import annotations

import argparse

from emulator.target.errors import StfError
from emulator.target.stf import run_stf

HELP = "run a p4c STF packet test (PROG.p4 or PROG.json) on the built-in switch target"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``stf`` subcommand's arguments."""
    parser.add_argument("program", help="P4 program (.p4, compiled by fabemu p4c) or BMv2 JSON")
    parser.add_argument("stf", help="STF test file")
    parser.add_argument(
        "--priority-queues",
        type=int,
        default=1,
        metavar="N",
        help="egress queues per port, as simple_switch's --priority-queues (default 1)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the test; print the report; 0 if it passed, 1 if it failed."""
    if not 1 <= args.priority_queues <= 32:
        raise StfError(f"--priority-queues must be 1..32, got {args.priority_queues}")
    result = run_stf(args.program, args.stf, priority_queues=args.priority_queues)
    print(result.message)
    return 0 if result.passed else 1
