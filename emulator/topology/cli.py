"""``fabemu topo``: list shipped topologies, show one resolved (YAML/JSON) or as a picture."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emulator.topology.errors import TopologyError
from emulator.topology.io import TOPOLOGY_DIR, dump, load_spec, spec_to_dict
from emulator.topology.resolve import resolve
from emulator.topology.scale import ScaleSpec

HELP = "List topologies, or show one resolved (yaml/json) or drawn (png/svg)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``list`` and ``show`` sub-actions."""
    sub = parser.add_subparsers(dest="topo_action", metavar="ACTION")
    sub.add_parser("list", help="list the shipped topology files")
    show = sub.add_parser("show", help="resolve a topology file and print or draw it")
    show.add_argument("file", help="topology file, or the name of a shipped topology")
    show.add_argument("--format", choices=("yaml", "json", "png", "svg"), default=None)
    show.add_argument("-o", "--output", default=None, help="output file (required for png/svg)")


def _list() -> int:
    for path in sorted(TOPOLOGY_DIR.glob("*.y*ml")) + sorted(TOPOLOGY_DIR.glob("*.json")):
        spec = load_spec(path)
        if isinstance(spec, ScaleSpec):
            what = f"scale: {spec.gpus} GPUs in {spec.zones} zones"
        else:
            what = f"clos: {spec.hosts} hosts, {spec.zones} zone(s), {spec.spines} spines/zone"
        print(f"{spec.name:20s} {what:45s} {path.name}")
    return 0


def _show(args: argparse.Namespace) -> int:
    fmt = args.format
    if fmt is None:
        suffix = Path(args.output).suffix.lstrip(".").lower() if args.output else ""
        fmt = suffix if suffix in ("yaml", "json", "png", "svg") else "yaml"
    spec = load_spec(args.file)
    if isinstance(spec, ScaleSpec):
        if fmt in ("png", "svg"):
            raise TopologyError(f"{args.file}: a scale description cannot be drawn")
        text = dump({"spec": spec_to_dict(spec), "counts": spec.counts()}, fmt)
    else:
        topo = resolve(spec, str(args.file))
        if fmt in ("png", "svg"):
            if not args.output:
                raise TopologyError(f"--format {fmt} needs -o OUT")
            from emulator.topology.draw import draw

            try:
                print(draw(topo, args.output, fmt))
            except OSError as exc:
                raise TopologyError(f"{args.output}: cannot write: {exc.strerror}") from None
            return 0
        text = dump(topo.to_dict(), fmt)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise TopologyError(f"{args.output}: cannot write: {exc.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0


def run(args: argparse.Namespace) -> int:
    """Dispatch ``fabemu topo list|show``."""
    if args.topo_action == "list":
        return _list()
    if args.topo_action == "show":
        return _show(args)
    raise TopologyError("say 'fabemu topo list' or 'fabemu topo show FILE'")
