"""``fabemu list``: the shipped scenarios and topologies."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from emulator.errors import UserError
from emulator.scenario.load import load_scenario

HELP = "list shipped scenarios (and topologies) with their descriptions"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Where to look."""
    parser.add_argument("--scenarios-dir", default="scenarios", type=Path)
    parser.add_argument("--topologies-dir", default="topologies", type=Path)


def run(args: argparse.Namespace) -> int:
    """Print one table of scenarios and one of topologies."""
    console = Console()
    table = Table(title="scenarios")
    for col in ("file", "name", "workload", "description"):
        table.add_column(col)
    for path in sorted(Path(args.scenarios_dir).glob("*.yaml")):
        try:
            sc = load_scenario(path)
            table.add_row(str(path), sc.name, sc.workload.kind, sc.description)
        except UserError as exc:
            table.add_row(str(path), "INVALID", "", str(exc).splitlines()[0])
    console.print(table)
    topos = Table(title="topologies")
    topos.add_column("file")
    for path in sorted(Path(args.topologies_dir).glob("*.yaml")):
        topos.add_row(str(path))
    console.print(topos)
    return 0
