"""``fabemu control``: render the runtime command files of every switch of a topology.

fabemu control two_rack_4spine --out cmds/ [--lb-mode eecmp] [--fail rtsw0:ctsw1]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from emulator.control.config import FabricConfig, PfcConfig
from emulator.control.controller import FabricController
from emulator.control.errors import ControlError
from emulator.topology import load_clos, resolve
from emulator.vocab import HashAlgo, LbMode

HELP = "render simple_switch_CLI command files for roce_fabric.p4 from a topology"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``fabemu control``."""
    parser.add_argument("topology", help="topology name (topologies/*.yaml) or YAML path")
    parser.add_argument("--out", required=True, help="directory for <switch>.cli files")
    parser.add_argument("--lb-mode", choices=[str(m) for m in LbMode], default=str(LbMode.EECMP))
    parser.add_argument(
        "--hash",
        choices=[str(h) for h in HashAlgo],
        default=None,
        help="one algorithm for every tier",
    )
    parser.add_argument("--no-pfc", action="store_true", help="do not program PFC generation")
    parser.add_argument(
        "--fail",
        action="append",
        default=[],
        metavar="A:B",
        help="also write the repair commands for the links between A and B going down",
    )


def run(args: argparse.Namespace) -> int:
    """Write one command file per switch (and repair files); print their paths."""
    topo = resolve(load_clos(args.topology))
    config = FabricConfig(lb_mode=args.lb_mode, pfc=PfcConfig(enabled=not args.no_pfc))
    if args.hash:
        hashes = {role: args.hash for role in ("leaf", "spine", "agg")}
        config = FabricConfig(
            lb_mode=args.lb_mode, hash_algos=hashes, pfc=PfcConfig(enabled=not args.no_pfc)
        )
    ctl = FabricController(topo, config)
    files = {f"{name}.cli": ctl.command_file(name) for name in ctl.switch_names}
    for spec in args.fail:
        a, sep, b = spec.partition(":")
        if not sep or not a or not b:
            raise ControlError(f"--fail {spec!r}: expected A:B (two node names)")
        for name, text in ctl.fail_link(a, b).items():
            files[f"repair_{a}_{b}_{name}.cli"] = text
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            (out / fname).write_text(text)
            print(out / fname)
    except OSError as exc:
        raise ControlError(f"--out {out}: cannot write: {exc.strerror}") from None
    return 0
