"""Seeded differential fuzzing of P4 expression semantics: real p4c + BMv2 against fabemu.

Like p4c's "gauntlet": each v1model program assigns ``--fields`` output fields a random
expression of the field's type (all operators of bit<W>/int<W>/bool, casts, slices, ``++``,
typed and untyped constants) over input fields of assorted types. A program exactly one
compiler refuses is a finding (one-field programs locate the field). Packets with edge
values run three ways: p4c's JSON on the real simple_switch (the reference), fabemu's
front end + built-in target ("fabemu"), p4c's JSON on the built-in target ("json": the
target's fault). Frames are compared byte for byte; each differing field's expression is
reduced (a round is one program holding a batch of one-step reductions; the smallest
still differing the same ways wins) and confirmed alone in a one-field program.

    python benchmarks/fuzz_differential.py --seed 1 --programs 40 --keep /tmp/fuzzdiff/s1

``--keep DIR`` gets findings.txt and each differing program and reduced repro (.p4; .stf
with the real outputs as expect lines). ``--lock FILE`` takes an exclusive ``fcntl.flock``
on FILE around each use of p4c-bm2-ss and simple_switch, for jobs sharing a machine that
agree on that file. Needs p4c-bm2-ss,
simple_switch and simple_switch_CLI on PATH. Exit status 1 on any finding.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from conformance_p4c_samples import real_json, real_outputs  # noqa: E402
from fuzz_programs import (  # noqa: E402
    IN_BYTES,
    INPUTS,
    OUT_AT,
    Expr,
    Gen,
    Layout,
    decode,
    make_packets,
    reductions,
    render,
    tname,
)

from emulator.p4c import CompileError, compile_source  # noqa: E402
from emulator.target.switch import Switch  # noqa: E402

Rows = list[tuple[int, int | None, int | None]]  # (packet, real value, a way's value)
Diffs = dict[str, dict[str, Rows]]  # field -> way -> rows


@dataclass
class Result:
    """Compilations; frames by packet number (source MAC), port byte first; crash: -2."""

    p4c_error: str = ""
    fab_error: str = ""
    real_error: str = ""
    real: dict[int, bytes] = field(default_factory=dict)
    ways: dict[str, dict[int, bytes]] = field(default_factory=dict)


def _line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:200]


def _locked(path: Path | None) -> contextlib.AbstractContextManager[object]:
    """An exclusive flock on ``path`` while the real tools run (nothing without one)."""
    if path is None:
        return contextlib.nullcontext()
    f = path.open("a")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f  # closing the file releases the lock


def run_program(
    src: str, packets: list[bytes], work: Path, lock: Path | None, outputs: bool
) -> Result:
    """Compile both ways; with ``outputs`` and both compiled, run the packets three ways."""
    (p4 := work / "prog.p4").write_text(src)
    res, docs = Result(), {}
    try:
        docs["fabemu"] = compile_source(src, str(p4))
    except CompileError as exc:
        res.fab_error = _line(exc)
    except Exception as exc:  # a front-end crash is a finding
        res.fab_error = "crash " + _line(exc)
    with _locked(lock):
        ref, res.p4c_error = real_json(p4, work)
        res.p4c_error = "" if ref else res.p4c_error or "p4c-bm2-ss refused"
        if ref is None or not outputs or res.fab_error:
            return res
        try:
            real = real_outputs(ref, [("packet", (0, f)) for f in packets], work)
            res.real = {f[11] - 1: bytes([p]) + f for p, fs in real.items() for f in fs}
        except Exception as exc:  # simple_switch did not run: no comparison
            res.real_error = _line(exc)
    docs["json"] = json.loads(ref.read_text())
    for way, doc in docs.items():
        try:
            sw = Switch(doc)
            outs = [out for f in packets for out in sw.process(0, f)]
            res.ways[way] = {f[11] - 1: bytes([p]) + f for p, f in outs}  # by source MAC
        except Exception as exc:  # a target crash is a finding
            res.ways[way] = {-2: _line(exc).encode()}
    return res


def field_diffs(res: Result, layout: Layout, count: int) -> Diffs:
    """field -> way -> rows; ``<frame>`` when no output field explains a difference."""
    out: Diffs = {}
    for way, got in res.ways.items():
        for seq in [*range(count), -2]:
            if (r := res.real.get(seq)) == (g := got.get(seq)):
                continue
            rv, gv = decode(r, layout, OUT_AT), decode(g, layout, OUT_AT)
            names = [n for n, _ in layout if rv and gv and rv[n] != gv[n]] or ["<frame>"]
            for n in names:
                out.setdefault(n, {}).setdefault(way, []).append((seq, rv.get(n), gv.get(n)))
    return out


def show(name: str, per_way: dict[str, Rows], packets: list[bytes]) -> str:
    """One line per way: the first differing packet's inputs, real and way's values."""
    out = []
    for way, rows in sorted(per_way.items()):
        seq, r, g = rows[0]
        inputs = decode(b"\x00" + packets[seq], INPUTS, OUT_AT - IN_BYTES) if seq >= 0 else {}
        ins = " ".join(f"{n}=0x{v:x}" for n, v in inputs.items())
        real, got = ("none" if v is None else hex(v) for v in (r, g))
        out.append(f"  {way}: {name} real={real} {way}={got} ({len(rows)} pkt) inputs: {ins}")
    return "\n".join(out)


@dataclass
class Fuzzer:
    """Run-wide settings, counters and findings; one method per step."""

    args: argparse.Namespace
    work: Path
    stats: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)
    n: int = 0  # the current program's number, output layout, expressions and packets
    layout: Layout = field(default_factory=list)
    exprs: dict[str, Expr] = field(default_factory=dict)
    packets: list[bytes] = field(default_factory=list)

    def run(self, src: str, packets: list[bytes], outputs: bool = True) -> Result:
        self.stats["runs (compile, or compile + packets)"] += 1
        return run_program(src, packets, self.work, self.args.lock, outputs)

    def note(self, kind: str, stem: str, src: str, res: Result, head: str, rows: str) -> None:
        """Print a finding; ``--keep`` gets it, ``stem``.p4 and ``stem``.stf (real outputs)."""
        p4 = self.args.keep / f"{stem}.p4" if self.args.keep else None
        text = f"{kind} {head} {p4 or ''}" + (f"\n{rows}" if rows else "")
        print(text, flush=True)
        self.findings.append(text)
        if p4:
            p4.parent.mkdir(parents=True, exist_ok=True)
            p4.write_text(f"/* {head} */\n{src}")
            lines = [f"# {ln}" for ln in head.splitlines()]
            for seq, frame in enumerate(self.packets if res.ways else []):
                lines.append(f"packet 0 {frame.hex().upper()}")
                if (real := res.real.get(seq)) is not None:
                    lines.append(f"expect {real[0]} {real[1:].hex().upper()}")
            p4.with_suffix(".stf").write_text("\n".join(lines) + "\n")
            with open(p4.parent / "findings.txt", "a") as fh:
                fh.write(text + "\n")

    def reduce(self, exprs: dict[str, Expr], ways: dict[str, set[str]]) -> dict[str, Expr]:
        """Shrink each expression while it differs the same ways: one program (one real run)
        a round, with a batch of each one's one-step reductions, smallest first."""
        cur, skip = dict(exprs), dict.fromkeys(exprs, 0)
        for _ in range(self.args.rounds):
            per = max(6, 60 // max(1, len(cur)))
            cands: dict[str, Expr] = {}
            for name, e in cur.items():
                uniq = {c.text(): c for c in reductions(e)}
                batch = sorted(uniq, key=len)[skip[name] :][:per]
                cands |= {f"{name}_{i}": uniq[text] for i, text in enumerate(batch)}
            if not cands:
                break
            layout = [(cn, c.ty) for cn, c in cands.items()]
            res = self.run(render(layout, cands), self.packets)
            if res.p4c_error or res.fab_error or res.real_error:
                break
            diffs = field_diffs(res, layout, len(self.packets))
            for name in cur:
                mine = [cn for cn in cands if cn.rsplit("_", 1)[0] == name]
                ok = [cands[cn] for cn in mine if set(diffs.get(cn, {})) == ways[name]]
                cur[name] = min(ok, key=lambda c: len(c.text())) if ok else cur[name]
                skip[name] = 0 if ok else skip[name] + per
        return cur

    def minimize(self, diffs: Diffs) -> None:
        """Reduce each differing field's expression; confirm it alone in a one-field program."""
        n, packets, types = self.n, self.packets, dict(self.layout)
        names = [f for f in diffs if f in self.exprs][: self.args.max_fields]
        ways = {f: set(diffs[f]) for f in names}
        small = self.reduce({f: self.exprs[f] for f in names}, ways)
        for f in names:
            res = self.run(src := render([(f, types[f])], {f: small[f]}), packets)
            d = field_diffs(res, [(f, types[f])], len(packets)).get(f, {})
            self.stats[f"reduced findings {'confirmed' if d else 'not reproduced alone'}"] += 1
            now, full = ",".join(sorted(d)) or "no longer", ",".join(sorted(ways[f]))
            head = f"program {n} field {f} ({tname(types[f])}) = {small[f].text()}\n"
            head += f"differs: {now} (full program: {full})"
            self.note("REDUCED", f"prog{n}_{f}", src, res, head, show(f, d, packets))

    def refusal(self, res: Result) -> None:
        """Exactly one compiler refused: the fields whose one-field programs split them."""
        which = "p4c refuses, fabemu accepts" if res.p4c_error else "p4c accepts, fabemu refuses"
        self.stats[which] += 1
        for f, t in self.layout:
            one = self.run(src := render([(f, t)], {f: self.exprs[f]}), [], outputs=False)
            if bool(one.p4c_error) != bool(one.fab_error):
                head = (
                    f"{which}: program {self.n} field {f} ({tname(t)}) = {self.exprs[f].text()}\n"
                )
                head += f"p4c: {one.p4c_error or 'ok'}\nfabemu: {one.fab_error or 'ok'}"
                self.note("REFUSAL", f"prog{self.n}_{f}_refusal", src, one, head, "")

    def program(self, n: int) -> None:
        """Generate, run and compare program ``n`` of the seed."""
        a, st = self.args, self.stats
        rng = random.Random(f"{a.seed}:{n}")
        gen = Gen(rng, 0.05 if rng.random() < a.edge else 0.0, a.skip)
        self.n, self.layout = n, [(f"f{i}", gen.ty()) for i in range(a.fields)]
        self.exprs = exprs = {f: gen.num(t, rng.randint(1, a.depth)) for f, t in self.layout}
        self.packets = packets = make_packets(rng, a.packets)
        res = self.run(src := render(self.layout, exprs), packets)
        st["programs"] += 1
        st["fabemu front-end crashes"] += res.fab_error.startswith("crash")
        st["refused by both"] += bool(res.p4c_error and res.fab_error)
        if bool(res.p4c_error) != bool(res.fab_error):
            self.refusal(res)
        st["compiled by both"] += not (res.p4c_error or res.fab_error)
        st["simple_switch errors"] += bool(res.real_error)
        if res.p4c_error or res.fab_error or res.real_error:
            if a.verbose or res.real_error:
                errors = f"p4c: {res.p4c_error or 'ok'} | fabemu: {res.fab_error or 'ok'}"
                print(f"[{n}] {errors} | simple_switch: {res.real_error or 'ok'}", flush=True)
            return
        st["packets compared"] += len(packets)
        diffs = field_diffs(res, self.layout, len(packets))
        for way in ("fabemu", "json"):
            bad = {seq for per in diffs.values() for seq, *_ in per.get(way, [])}
            st[f"differing packets ({way})"] += len(bad)
            st[f"differing fields ({way})"] += sum(way in per for per in diffs.values())
        if a.verbose or diffs:
            print(f"[{n}] {len(diffs)} differing field(s)", flush=True)
        if diffs:
            st["programs with differences"] += 1
            for f, per in sorted(diffs.items()):
                text = exprs[f].text() if f in exprs else "(frame)"
                head = f"seed {a.seed} program {n} {f} = {text}"
                self.note("DIFF", f"prog{n}", src, res, head, show(f, per, packets))
            self.minimize(diffs)


@dataclass
class WholeProgramFuzzer:
    """A fuzzer comparing whole programs (no per-field reduction): settings, counters,
    findings, how a program's compilations are counted and how a finding is kept."""

    args: argparse.Namespace
    work: Path
    stats: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)

    def keep(self, stem: str, src: str, packets: list[bytes], res: Result, head: str) -> None:
        """Print a finding; ``--keep`` gets ``stem``.p4 and ``stem``.stf (real outputs)."""
        print(head, flush=True)
        self.findings.append(head)
        if self.args.keep is None:
            return
        self.args.keep.mkdir(parents=True, exist_ok=True)
        (self.args.keep / f"{stem}.p4").write_text(f"/* {head} */\n{src}")
        lines = [f"# {ln}" for ln in head.splitlines()]
        for seq, frame in enumerate(packets):
            lines.append(f"packet 0 {frame.hex().upper()}")
            if (real := res.real.get(seq)) is not None:
                lines.append(f"expect {real[0]} {real[1:].hex().upper()}")
        (self.args.keep / f"{stem}.stf").write_text("\n".join(lines) + "\n")
        with open(self.args.keep / "findings.txt", "a") as fh:
            fh.write(head + "\n")

    def compared(self, n: int, src: str, packets: list[bytes], res: Result) -> bool:
        """Count program ``n``'s compilations; a refusal by one compiler is a finding.
        Whether both compiled it and simple_switch ran its packets (counted as compared)."""
        a, st = self.args, self.stats
        st["programs"] += 1
        if res.fab_error.startswith("crash"):
            st["fabemu front-end crashes"] += 1
        if bool(res.p4c_error) != bool(res.fab_error):
            which = "p4c refuses" if res.p4c_error else "fabemu refuses"
            st[which] += 1
            head = f"REFUSAL seed {a.seed} program {n}: {which}\n"
            head += f"p4c: {res.p4c_error or 'ok'}\nfabemu: {res.fab_error or 'ok'}"
            self.keep(f"prog{n}_refusal", src, packets, res, head)
            return False
        if res.p4c_error or res.real_error:
            st["refused by both" if res.p4c_error else "simple_switch errors"] += 1
            if a.verbose or res.real_error:
                print(f"[{n}] p4c: {res.p4c_error} | simple_switch: {res.real_error}")
            return False
        st["compiled by both"] += 1
        st["packets compared"] += len(packets)
        return True


def drive(
    doc: str, options: tuple[tuple[str, object, str], ...], make: Any, argv: list[str] | None
) -> int:
    """A fuzzer's command line: parse ``options`` (and ``--keep``, ``--verbose``, ``--lock``,
    ``--seed``),
    run ``make(args, workdir).program(n)`` for each program, print the counts; 1 on a finding."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, help="write differing programs and STFs here")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--lock", type=Path, help="flock this file while the real tools run")
    ap.add_argument("--seed", type=int, default=1, help="program N is generated from (seed, N)")
    for name, default, text in options:
        ap.add_argument(name, type=type(default), default=default, help=text)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-diff-") as tmp:
        fuzzer = make(args, Path(tmp))
        for n in range(args.programs):
            fuzzer.program(n)
    print(f"--- seed {args.seed}: {args.programs} programs in {time.monotonic() - t0:.0f} s")
    print("\n".join(f"{key}: {count}" for key, count in sorted(fuzzer.stats.items())))
    return 1 if fuzzer.findings else 0


OPTIONS = (
    ("--edge", 0.15, "share of programs with edge forms (p4c warns, or may refuse)"),
    ("--skip", "", "forms left out, e.g. concat,shift (see Gen.num)"),
    ("--programs", 40, "programs to generate"),
    ("--fields", 12, "output fields per program"),
    ("--depth", 4, "maximum expression depth"),
    ("--packets", 4, "packets per program"),
    ("--rounds", 10, "reduction rounds per program"),
    ("--max-fields", 4, "fields reduced per program"),
)


def main(argv: list[str] | None = None) -> int:
    """Fuzz expressions: generate, run three ways, reduce and keep what differs."""
    return drive(__doc__ or "", OPTIONS, Fuzzer, argv)


if __name__ == "__main__":
    sys.exit(main())
