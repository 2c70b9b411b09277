"""What compiling the generated P4 code with mypyc would give: the parser and deparser.

The built-in target turns a program's BMv2 JSON into Python functions at load time
(:mod:`emulator.target.codegen`); with the runtime's modules compiled, that generated
code is ~40 % of a simulation's CPU (docs/performance.md). This script measures the next
step before anyone builds it: it writes ``roce_fabric.p4``'s fused parser and its
deparser into a module (the namespace objects they use become module globals set by
``init``; locals annotated as ints, as a generator could), compiles that module with
mypyc in a temporary directory, checks that both versions parse to the same slots and
deparse to the same bytes, and times them (CPU us per call, median of ``--repeat``
rounds, interpreted and compiled alternating).

    .venv/bin/python benchmarks/bench_gen_native.py [--repeat 7] [--calls 20000]

Needs mypy (the ``dev`` extra) and a C compiler, as ``python -m emulator.native build``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from emulator.p4c import compile_file
from emulator.target.packet import Pkt
from emulator.target.pipeline import CompiledProgram
from emulator.traffic.headers import RETH

PROGRAM = Path(__file__).resolve().parents[1] / "p4" / "roce_fabric.p4"
_NAME = re.compile(r"\b_[A-Za-z]\w*")
_DEF = re.compile(r"^def (\w+)\(f, p\):\n")


def module_source(cp: CompiledProgram) -> tuple[str, str, str]:
    """(source of a module holding the fused parser and the deparser, their names)."""
    parser = cp.parser.fused
    if parser is None:
        raise SystemExit("the program has no fused parser (FASTPARSE off?)")
    wanted = [s for s in cp.cg.sources if s.startswith((f"def {parser.__name__}(", "def dep_"))]
    deparser = next(_DEF.match(s).group(1) for s in wanted if s.startswith("def dep_"))  # type: ignore[union-attr]
    names = sorted({n for s in wanted for n in _NAME.findall(s)})
    lines = ["from typing import Any", ""] + [f"{n}: Any = None" for n in names]
    lines += ["", "def init(ns: dict[str, Any]) -> None:", "    global " + ", ".join(names)]
    lines += [f"    {n} = ns[{n!r}]" for n in names]
    for s in wanted:
        name = _DEF.match(s).group(1)  # type: ignore[union-attr]
        local = "    o: int\n    e: int\n    k: int\n    v: tuple[int, ...]\n"
        if name == deparser:
            local = "    o: list[bytes]\n"
        lines += ["", f"def {name}(f: list[int], p: Any) -> Any:\n{local}" + s.split("\n", 1)[1]]
    return "\n".join(lines) + "\n", parser.__name__, deparser


def build(source: str, where: Path) -> Any:
    """Compile ``source`` as module ``p4gen`` with mypyc in ``where``; import it."""
    from mypyc.build import mypycify
    from setuptools import setup

    (where / "p4gen.py").write_text(source)
    with contextlib.chdir(where), contextlib.redirect_stdout(sys.stderr):
        setup(
            name="p4gen",
            ext_modules=mypycify(["p4gen.py"], opt_level="3"),
            script_args=["-q", "build_ext", "--inplace"],
        )
    so = next(where.glob("p4gen.*.so"))
    spec = importlib.util.spec_from_file_location("p4gen", so)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def frame() -> bytes:
    """A RoCEv2 WRITE FIRST frame with RETH and 1 KiB of payload."""
    pkt = (
        Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
        / IP(src="10.0.0.1", dst="10.0.1.1", tos=0x68)
        / UDP(sport=49152, dport=4791)
        / BTH(opcode=6, dqpn=0x123, psn=5)
        / RETH(va=0x1000, rkey=7, dlen=4096)
        / (b"x" * 1024)
    )
    return bytes(pkt)


def per_call(fn: Callable[[], object], calls: int) -> float:
    """CPU us per call of ``fn``."""
    t0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - t0) / calls * 1e6


def main() -> int:
    """Build, check, time; print medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    cp = CompiledProgram(compile_file(str(PROGRAM)))
    source, ps_name, dep_name = module_source(cp)
    with tempfile.TemporaryDirectory() as tmp:
        mod = build(source, Path(tmp))
    mod.init(cp.cg.ns)
    buf, tmpl = frame(), cp.layout.template
    ways = {
        "interpreted": (cp.cg.ns[ps_name], cp.cg.ns[dep_name]),
        "compiled": (getattr(mod, ps_name), getattr(mod, dep_name)),
    }
    parsed = {}
    for way, (ps, dep) in ways.items():
        f = tmpl.copy()
        p = Pkt(buf, f)
        ps(f, p)
        p.payload = buf[p.off :]
        if dep(f, p) != buf:
            raise SystemExit(f"{way}: the deparsed frame differs from the parsed one")
        parsed[way] = f
    if parsed["interpreted"] != parsed["compiled"]:
        raise SystemExit("the two parsers filled different slots")

    def parse_with(ps: Callable[..., Any]) -> Callable[[], object]:
        def once() -> object:
            f = tmpl.copy()
            return ps(f, Pkt(buf, f))

        return once

    f = tmpl.copy()
    p = Pkt(buf, f)
    ways["interpreted"][0](f, p)
    p.payload = buf[p.off :]
    empty = per_call(parse_with(lambda f, p: None), args.calls)  # the copy and the Pkt
    got: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for way, (ps, dep) in ways.items():
            got.setdefault(f"parse {way}", []).append(per_call(parse_with(ps), args.calls) - empty)
            got.setdefault(f"deparse {way}", []).append(
                per_call(functools.partial(dep, f, p), args.calls)
            )
    for what in ("parse", "deparse"):
        i, c = got[f"{what} interpreted"], got[f"{what} compiled"]
        ratios = [a / b for a, b in zip(i, c, strict=True)]
        print(
            f"{what:<8} interpreted {statistics.median(i):6.2f} us   compiled "
            f"{statistics.median(c):6.2f} us   ratio {statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
