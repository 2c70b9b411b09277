"""The ``fabemu`` command line: one subcommand per layer, each in its own module.

Every subcommand module exposes ``HELP: str``, ``add_arguments(parser)`` and
``run(args) -> int``; it is imported only when used, so ``fabemu --help`` stays fast.
User mistakes raise :class:`emulator.errors.UserError`: printed without a traceback, exit 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from emulator import __version__
from emulator.errors import UserError

#: subcommand -> module implementing it (HELP, add_arguments, run)
COMMANDS: dict[str, str] = {
    "run": "emulator.cli.cmd_run",
    "compare": "emulator.cli.cmd_compare",
    "report": "emulator.cli.cmd_report",
    "validate": "emulator.cli.cmd_validate",
    "list": "emulator.cli.cmd_list",
    "topo": "emulator.topology.cli",
    "clean": "emulator.runtime.clean",
    "control": "emulator.control.cli",
    "p4c": "emulator.p4c.cli",
    "stf": "emulator.target.stf_cli",
    "switch": "emulator.target.process",
    "scale": "emulator.scaler.cli",
    "scale-training": "emulator.scaler.training_cli",
}


def _available(only: str | None = None) -> dict[str, ModuleType]:
    mods: dict[str, ModuleType] = {}
    for name, modname in COMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            mods[name] = importlib.import_module(modname)
        except ModuleNotFoundError as exc:  # a layer not built yet: hide its command
            if exc.name and modname.startswith(exc.name):
                continue
            raise
    return mods


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with every available subcommand (or just ``only``)."""
    parser = argparse.ArgumentParser(
        prog="fabemu",
        description="Emulate AI-training fabrics: P4 Clos fabrics, RoCEv2 traffic, analytic scaling.",
    )
    parser.add_argument("--version", action="version", version=f"fabemu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, mod in _available(only).items():
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def tune_gc() -> None:
    """Make the cyclic garbage collector cheaper for one command's process.

    A ``fabemu run`` of the flagship spent ~0.13 CPU s (8 %) in the collector, half of it
    in full collections walking the objects its imports created (~40,000; ~90,000 with the
    report's). Those live as long as the process: ``gc.freeze`` moves them out of every
    later collection, and a higher first threshold (7000 allocations, not 700) collects
    young objects in fewer, larger passes: ~0.07 CPU s. Results do not depend on when
    garbage is collected. (``main`` freezes once more when the command returns, so the
    interpreter's exit does not walk the run's objects either.)"""
    gc.freeze()
    gc.set_threshold(7000, 10, 10)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fabemu`` console script; returns the process exit code.

    When the first argument names a subcommand, only that one's module is imported (the
    others pull in scipy, networkx, matplotlib, ...: ~1 s of CPU per invocation)."""
    args_in = sys.argv[1:] if argv is None else list(argv)
    first = args_in[0] if args_in else None
    parser = build_parser(first if first in COMMANDS else None)
    if argv is None:  # the process is this command (console script, python -m): not a caller's
        tune_gc()  # after the command's imports
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except UserError as exc:
        text = str(exc)
        # diagnostics that carry their own "file:line:col: error:" stand as they are
        prefix = "" if ": error: " in text.split("\n", 1)[0] else "error: "
        print(f"fabemu {args.command}: {prefix}{text}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"fabemu {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        if argv is None:  # the process ends next: its last collection would walk every
            gc.freeze()  # object of the run (~0.06 CPU s of ~0.08 interpreter teardown)


if __name__ == "__main__":
    raise SystemExit(main())
