"""``fabemu p4c``: compile a v1model P4-16 program to BMv2 JSON (p4c-bm2-ss style flags)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from emulator.errors import UserError

HELP = "compile a P4-16 v1model program to BMv2 JSON (like p4c-bm2-ss)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags mirroring p4c-bm2-ss: PROG.p4 -o OUT.json [-I DIR] [-D NAME[=VAL]]."""
    parser.add_argument("program", help="P4-16 source file")
    parser.add_argument(
        "-o", "--output", help="output JSON file (default: PROG.json next to the source)"
    )
    parser.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="add an include directory",
    )
    parser.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="NAME[=VAL]",
        help="define a macro",
    )
    parser.add_argument("--arch", default="v1model", help="architecture (only v1model)")
    parser.add_argument("--target", default="bmv2", help="target (only bmv2)")
    parser.add_argument("--std", default="p4-16", help="language (only p4-16)")
    parser.add_argument(
        "--p4runtime-files",
        metavar="FILES",
        help="write P4Info (protobuf text format) to these comma-separated .txt files",
    )
    parser.add_argument("--p4v", default="16", help="language version (only 16)")
    parser.add_argument("--pp", metavar="FILE", help="write the preprocessed program to FILE")


def parse_defines(items: list[str]) -> dict[str, str | None]:
    """``-D NAME=VAL`` / ``-D NAME`` into a mapping."""
    out: dict[str, str | None] = {}
    for item in items:
        name, eq, value = item.partition("=")
        out[name] = value if eq else None
    return out


def run(args: argparse.Namespace) -> int:
    """Compile and write the JSON; errors raise UserError (exit 2)."""
    from emulator.p4c import compile_file
    from emulator.p4c.diagnostics import read_source
    from emulator.p4c.frontend.preprocess import preprocess

    if args.arch != "v1model" or args.target != "bmv2":
        raise UserError(
            f"only --arch v1model --target bmv2 is supported, not {args.arch}/{args.target}"
        )
    if args.std not in ("p4-16", "p4_16"):
        raise UserError("only P4-16 is supported")
    p4info_files = [f for f in (args.p4runtime_files or "").split(",") if f]
    for f in p4info_files:
        if not f.endswith(".txt"):
            raise UserError(f"{f}: only the text P4Info format (.txt) is supported")
    defines = parse_defines(args.define)
    if args.pp:
        src = Path(args.program)
        text = read_source(str(src))
        Path(args.pp).write_text(
            preprocess(text, str(src), args.include, defines).text, encoding="utf-8"
        )
    if p4info_files:
        from emulator.p4c.compiler import compile_with_p4info

        doc, p4info = compile_with_p4info(args.program, include_dirs=args.include, defines=defines)
        for f in p4info_files:
            try:
                Path(f).write_text(p4info, encoding="utf-8")
            except OSError as exc:
                raise UserError(f"{f}: cannot write: {exc.strerror}") from None
    else:
        doc = compile_file(args.program, include_dirs=args.include, defines=defines)
    out = Path(args.output) if args.output else Path(args.program).with_suffix(".json")
    try:
        out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{out}: cannot write: {exc.strerror}") from None
    print(f"wrote {out}", file=sys.stderr)
    return 0
