"""Seeded differential fuzzing of P4 expression semantics: real p4c + BMv2 against fabemu.

Each generated v1model program assigns ``--fields`` output-header fields a random
expression of the field's type over an input header of assorted types (arithmetic,
saturating, bitwise, shifts, comparisons and ``&& || !`` in ``?:``, slices, ``++``, casts,
``/ %`` by powers of two, typed and untyped constants): as p4c's "gauntlet", to reach
corners of constant folding, typing and target arithmetic that hand-written tests miss.
Both compilers compile it (exactly one refusing is a finding; one-field programs locate
the field). Packets with edge values run three ways: p4c's JSON on the real simple_switch
(the reference), fabemu's front end + built-in target ("fabemu"), p4c's JSON on the
built-in target ("json": a difference there is the target's). Frames are compared byte for
byte; each differing field's expression is reduced (a round puts a batch of one-step
reductions into one program; the smallest still differing the same ways wins) and
confirmed alone in a one-field program.

    python benchmarks/fuzz_differential.py --seed 1 --programs 40 --keep /tmp/fuzzdiff/s1

``--keep DIR`` gets each differing program and reduced repro (.p4, and .stf with the real
outputs as expect lines) and findings.txt. The script takes an exclusive ``fcntl.flock``
on /tmp/fabemu-helpers-net.lock around each use of p4c-bm2-ss and simple_switch (shared
with other helpers); under an outer ``flock`` on it pass ``--no-lock``. Needs p4c-bm2-ss
and simple_switch(_CLI) on PATH. Exit status 1 on any finding.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import random
import string
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from conformance_p4c_samples import real_json, real_outputs  # noqa: E402

from emulator.p4c import CompileError, compile_source  # noqa: E402
from emulator.target.switch import Switch  # noqa: E402

LOCK = Path("/tmp/fabemu-helpers-net.lock")
Ty = tuple[bool, int]  # (signed, width); width 0 is bool
BOOL: Ty = (False, 0)
Layout = list[tuple[str, Ty]]
Rows = list[tuple[int, int | None, int | None]]  # (packet, real value, a way's value)
_NAMES = "u8 u16 u32 u4 s4 s8 s16 s32 u64 u1 u7 s64 u3 s5"
INPUTS: Layout = [(n, (n[0] == "s", int(n[1:]))) for n in _NAMES.split()]
IN_BYTES = sum(w for _, (_, w) in INPUTS) // 8
OUT_AT = 1 + 14 + IN_BYTES  # a stored frame starts with its egress port byte
ARITH = ("+", "-", "*", "&", "|", "^", "|+|", "|-|")
CMP = ("==", "!=", "<", ">", "<=", ">=")
WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64)
WAYS = ("fabemu", "json")
PROGRAM = string.Template("""\
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header in_t {\n$infields\n}
header out_t {\n$outfields\n}
struct H { eth_t eth; in_t inp; out_t outp; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.inp); transition accept; } }
control VC(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {
        sm.egress_spec = 1;
        hdr.outp.setValid();\n$body\n} }
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.inp); pkt.emit(hdr.outp); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
""")


def tname(t: Ty) -> str:
    """The P4 spelling of a type."""
    return "bool" if t == BOOL else f"{'int' if t[0] else 'bit'}<{t[1]}>"


@dataclass(frozen=True)
class Expr:
    """A typed expression tree: ``fmt`` with ``{0}``, ``{1}``... for the children's text."""

    fmt: str
    ty: Ty
    kids: tuple[Expr, ...] = ()
    untyped: bool = False  # an untyped literal: never a replacement (two would fold)

    def text(self) -> str:
        return self.fmt.format(*(k.text() for k in self.kids))

    def size(self) -> int:
        return 1 + sum(k.size() for k in self.kids)


def cast_field(name: str, src: Ty, t: Ty) -> Expr:
    """Input field ``name`` of type ``src`` as a ``t`` (two casts when sign and width change:
    p4c refuses that in one)."""
    ref = f"hdr.inp.{name}"
    if src == t:
        return Expr(ref, t)
    if src[0] == t[0] or src[1] == t[1]:
        return Expr(f"(({tname(t)}){ref})", t)
    mid = (t[0], src[1]) if not (t[0] and src[1] == 1) else (src[0], t[1])
    return Expr(f"(({tname(t)})(({tname(mid)}){ref}))", t)


def simple_leaf(t: Ty) -> Expr:
    """The one deterministic leaf of type ``t`` the reducer tries."""
    if t == BOOL:
        return Expr("(hdr.inp.u1 == 1w1)", t)
    exact = [n for n, ft in INPUTS if ft == t]
    if exact:
        return cast_field(exact[0], t, t)
    return cast_field("s64" if t[0] else "u64", (t[0], 64), t)


class Gen:
    """A seeded generator of well-typed expressions; ``edge`` is the chance, per occasion, of
    a form p4c-bm2-ss only warns about or that the two compilers may disagree on."""

    def __init__(self, rng: random.Random, edge: float) -> None:
        self.rng, self.edge = rng, edge

    def hit(self) -> bool:
        return self.rng.random() < self.edge

    def width(self, signed: bool) -> int:
        w = self.rng.choice(WIDTHS) if self.rng.random() < 0.6 else self.rng.randint(1, 64)
        return 2 if signed and w == 1 and not self.hit() else w

    def ty(self) -> Ty:
        signed = self.rng.random() < 0.4
        return (signed, self.width(signed))

    def value(self, t: Ty) -> int:
        s, w = t
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)
        pick = self.rng.choice((lo, hi, 0, 1, -1, 1 << (w - 1), None, None, None))
        return self.rng.randint(lo, hi) if pick is None else max(lo, min(hi, pick))

    def const(self, t: Ty, untyped: bool = False) -> Expr:
        """A typed constant (``8w5``, ``(-8s3)``) or an untyped literal that fits ``t``;
        on an edge hit one that does not fit (p4c warns and wraps)."""
        v = self.value(t)
        if untyped:
            v = (-v - 1 if not t[0] else v + (1 << t[1])) if self.hit() else v
            return Expr(f"({v})" if v < 0 else str(v), t, untyped=True)
        if self.hit():
            v += (1 << t[1]) if v >= 0 else -(1 << (t[1] - 1))
        text = f"{t[1]}{'s' if t[0] else 'w'}{abs(v)}"
        return Expr(f"(-{text})" if v < 0 else text, t)

    def leaf(self, t: Ty) -> Expr:
        r = self.rng
        if t == BOOL:
            if r.random() < 0.15:
                return Expr(r.choice(("true", "false")), t)
            u = self.ty()
            return Expr(f"({{0}} {r.choice(CMP)} {{1}})", t, (self.leaf(u), self.leaf(u)))
        if r.random() < 0.3:
            return self.const(t)
        exact = [n for n, ft in INPUTS if ft == t]
        if exact and r.random() < 0.7:
            return cast_field(r.choice(exact), t, t)
        name, src = r.choice(INPUTS)
        return cast_field(name, src, t)

    def num(self, t: Ty, d: int) -> Expr:
        """An expression of the numeric type ``t``, at most ``d`` levels deep."""
        r, (s, w) = self.rng, t
        if d <= 0 or r.random() < 0.15:
            return self.leaf(t)
        forms = ["arith"] * 4 + ["unary", "shift", "shift", "tern", "cast", "cast"]
        forms += [] if s else ["slice", "slice", "divmod"]
        forms += ["concat"] if w >= (4 if s else 2) else []
        kind, d = r.choice(forms), d - 1
        if kind == "arith":
            a, b = self.num(t, d), self.const(t, True) if r.random() < 0.15 else self.num(t, d)
            a, b = (b, a) if b.untyped and r.random() < 0.5 else (a, b)
            return Expr(f"({{0}} {r.choice(ARITH)} {{1}})", t, (a, b))
        if kind == "unary":
            return Expr(f"({r.choice('~-')}{{0}})", t, (self.num(t, d),))
        if kind == "tern":
            return Expr("({0} ? {1} : {2})", t, (self.boolean(d), self.num(t, d), self.num(t, d)))
        if kind == "shift":
            op = r.choice(("<<", ">>"))
            if r.random() < 0.4:  # a constant amount, possibly >= the width
                amount = Expr(str(r.randint(0, w + 2)), (False, 8), untyped=True)
            else:  # a run-time amount: bit<N>, N <= 8 (BMv2 would allocate 2^N bits)
                amount = self.num((False, r.randint(1, 8)), d)
            return Expr(f"({{0}} {op} {{1}})", t, (self.num(t, d), amount))
        if kind == "divmod":
            k = r.randint(0, w - 1)
            div = f"{w}w{1 << k}" if r.random() < 0.5 else str(1 << k)
            return Expr(f"({{0}} {r.choice('/%')} {div})", t, (self.num(t, d),))
        return {"cast": self.cast, "slice": self.slice, "concat": self.concat}[kind](t, d)

    def boolean(self, d: int) -> Expr:
        """A bool expression, at most ``d`` levels deep."""
        r = self.rng
        if d <= 0 or r.random() < 0.15:
            return self.leaf(BOOL)
        kind = r.choice(("cmp", "cmp", "cmp", "and", "or", "not", "cast", "eq"))
        if kind == "cmp":
            u = self.ty()
            b = self.const(u, True) if r.random() < 0.2 else self.num(u, d - 1)
            return Expr(f"({{0}} {r.choice(CMP)} {{1}})", BOOL, (self.num(u, d - 1), b))
        if kind == "not":
            return Expr("(!{0})", BOOL, (self.boolean(d - 1),))
        if kind == "cast":
            return Expr("((bool){0})", BOOL, (self.num((False, 1), d - 1),))
        op = {"and": "&&", "or": "||", "eq": r.choice(("==", "!="))}[kind]
        return Expr(f"({{0}} {op} {{1}})", BOOL, (self.boolean(d - 1), self.boolean(d - 1)))

    def cast(self, t: Ty, d: int) -> Expr:
        """``(t)`` of another width, the other sign, or (for bit<1>) a bool."""
        s, w = t
        if t == (False, 1) and self.rng.random() < 0.3:
            src: Ty = BOOL
        elif self.rng.random() < 0.5 or (not s and w == 1 and not self.hit()):
            src = (s, self.width(s))
        else:
            src = (not s, w)
        kid = self.boolean(d) if src == BOOL else self.num(src, d)
        return Expr(f"(({tname(t)}){{0}})", t, (kid,))

    def slice(self, t: Ty, d: int) -> Expr:
        w = t[1]
        size = self.rng.randint(max(w, 2), 64)
        lo = self.rng.randint(0, size - w)
        src = self.num((self.rng.random() < 0.25, size), d)
        return Expr(f"(({{0}})[{lo + w - 1}:{lo}])", t, (src,))

    def concat(self, t: Ty, d: int) -> Expr:
        """``a ++ b``; on an edge hit of mixed signs (p4c refuses those)."""
        s, w = t
        left = self.rng.randint(2, w - 2) if s else self.rng.randint(1, w - 1)
        right_signed = (not s if self.hit() else s) and w - left > 1
        kids = (self.num((s, left), d), self.num((right_signed, w - left), d))
        return Expr("({0} ++ {1})", t, kids)


def reductions(e: Expr) -> list[Expr]:
    """Every expression one step smaller than ``e`` (same type): an inner node replaced by a
    child of its own type or by the plain leaf of its type."""
    out = [k for k in e.kids if k.ty == e.ty and not k.untyped]
    if e.kids:  # leaves stay: swapping one leaf for another makes nothing smaller
        out.append(simple_leaf(e.ty))
    for i, k in enumerate(e.kids):
        for r in reductions(k):
            out.append(replace(e, kids=(*e.kids[:i], r, *e.kids[i + 1 :])))
    return out


def with_pad(layout: Layout) -> Layout:
    pad = -sum(t[1] for _, t in layout) % 8
    return layout + ([("pad", (False, pad))] if pad else [])


def render(layout: Layout, exprs: dict[str, Expr]) -> str:
    """The program assigning ``exprs[name]`` to each output field of ``layout``."""
    full = with_pad(layout)
    body = [f"        hdr.outp.{n} = {exprs[n].text()};" for n, _ in layout]
    body += ["        hdr.outp.pad = 0;"] if len(full) > len(layout) else []
    return PROGRAM.substitute(
        infields="\n".join(f"    {tname(t)} {n};" for n, t in INPUTS),
        outfields="\n".join(f"    {tname(t)} {n};" for n, t in full),
        body="\n".join(body),
    )


def make_packets(rng: random.Random, count: int) -> list[bytes]:
    """Frames with random input values, about half of them edge values."""
    frames = []
    for seq in range(count):
        acc = 0
        for _, (_, w) in INPUTS:
            edges = (0, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 1)
            v = rng.choice(edges) if rng.random() < 0.5 else rng.getrandbits(w)
            acc = (acc << w) | v
        eth = bytes(5) + b"\x02" + bytes(5) + bytes([seq + 1]) + b"\x88\xb5"
        frames.append(eth + acc.to_bytes(IN_BYTES, "big") + b"\xfe\xed")
    return frames


def decode(frame: bytes | None, layout: Layout, at: int) -> dict[str, int]:
    """Raw field values of ``layout`` packed from byte ``at`` of ``frame`` ({} if short)."""
    full = with_pad(layout)
    nbytes = sum(t[1] for _, t in full) // 8
    if frame is None or len(frame) < at + nbytes:
        return {}
    acc, left, out = int.from_bytes(frame[at : at + nbytes], "big"), nbytes * 8, {}
    for name, (_, w) in full:
        left -= w
        out[name] = (acc >> left) & ((1 << w) - 1)
    return out


@dataclass
class Result:
    """One program's compilations and, per packet (keyed by sequence), the output frames."""

    p4c_error: str = ""
    fab_error: str = ""
    real_error: str = ""
    real: dict[int, bytes] = field(default_factory=dict)
    ways: dict[str, dict[int, bytes]] = field(default_factory=dict)


@contextlib.contextmanager
def real_lock(enabled: bool) -> Iterator[None]:
    """Hold the helpers' lock on the real tools (closing the file releases it)."""
    with open(LOCK, "a") as fh:
        if enabled:
            fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:200]


def by_seq(pairs: list[tuple[int, bytes]]) -> dict[int, bytes]:
    """Output frames keyed by the sequence number in their source MAC, port byte first."""
    return {f[11] - 1 if len(f) > 11 else -1: bytes([p]) + f for p, f in pairs}


def on_target(doc: object, packets: list[bytes]) -> dict[int, bytes]:
    """The packets through the built-in target; a crash is one entry keyed -2."""
    try:
        sw = Switch(doc)  # type: ignore[arg-type]
        return by_seq([out for f in packets for out in sw.process(0, f)])
    except Exception as exc:  # a target crash is a finding, reported as such
        return {-2: _line(exc).encode()}


def run_program(src: str, packets: list[bytes], work: Path, lock: bool, outputs: bool) -> Result:
    """Compile with both compilers; with ``outputs`` and both compiled, run the packets all
    three ways."""
    work.mkdir(parents=True, exist_ok=True)
    p4 = work / "prog.p4"
    p4.write_text(src)
    res, doc = Result(), None
    try:
        doc = compile_source(src, str(p4))
    except CompileError as exc:
        res.fab_error = _line(exc)
    except Exception as exc:  # a front-end crash is a finding
        res.fab_error = "crash " + _line(exc)
    with real_lock(lock):
        ref, res.p4c_error = real_json(p4, work)
        if ref is None:
            res.p4c_error = res.p4c_error or "p4c-bm2-ss refused"
        if ref is None or not outputs or doc is None:
            return res
        try:
            real = real_outputs(ref, [("packet", (0, f)) for f in packets], work)
            res.real = by_seq([(p, f) for p, fs in real.items() for f in fs])
        except Exception as exc:  # simple_switch did not run: no comparison
            res.real_error = _line(exc)
    res.ways["json"] = on_target(json.loads(ref.read_text()), packets)
    res.ways["fabemu"] = on_target(doc, packets)
    return res


Diffs = dict[str, dict[str, Rows]]


def field_diffs(res: Result, layout: Layout, count: int) -> Diffs:
    """field -> way -> [(packet, real value, way's value)]; ``<frame>`` when no output
    field explains a difference (another byte, a missing frame, a target crash)."""
    out: Diffs = {}
    for way, got in res.ways.items():
        for seq in [*range(count), -2]:
            r, g = res.real.get(seq), got.get(seq)
            if r == g:
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

    def run(self, src: str, packets: list[bytes], outputs: bool = True) -> Result:
        self.stats["runs (compile, or compile + packets)"] += 1
        return run_program(src, packets, self.work, not self.args.no_lock, outputs)

    def note(self, text: str) -> None:
        print(text, flush=True)
        self.findings.append(text)
        if self.args.keep:
            with open(self.args.keep / "findings.txt", "a") as fh:
                fh.write(text + "\n")

    def repro(self, stem: str, src: str, packets: list[bytes], res: Result, head: str) -> str:
        """``stem``.p4 and ``stem``.stf (real outputs as expect lines) in ``--keep``."""
        if not self.args.keep:
            return ""
        p4 = self.args.keep / f"{stem}.p4"
        p4.write_text(f"/* {head} */\n{src}")
        lines = [f"# {ln}" for ln in head.splitlines()]
        for seq, frame in enumerate(packets):
            lines.append(f"packet 0 {frame.hex().upper()}")
            if (real := res.real.get(seq)) is not None:
                lines.append(f"expect {real[0]} {real[1:].hex().upper()}")
        p4.with_suffix(".stf").write_text("\n".join(lines) + "\n")
        return str(p4)

    def reduce(
        self, exprs: dict[str, Expr], ways: dict[str, set[str]], packets: list[bytes]
    ) -> dict[str, Expr]:
        """Shrink each expression while it still differs the same ways. A round puts a batch
        of each one's one-step reductions, smallest first, into one program (one real run);
        the smallest still differing wins, else the next round tries the next batch."""
        cur, skip = dict(exprs), dict.fromkeys(exprs, 0)
        for _ in range(self.args.rounds):
            per = max(6, 60 // max(1, len(cur)))
            cands: dict[str, tuple[str, Expr]] = {}
            for name, e in cur.items():
                uniq = sorted({c.text(): c for c in reductions(e)}.values(), key=Expr.size)
                for i, c in enumerate(uniq[skip[name] : skip[name] + per]):
                    cands[f"{name}_{i}"] = (name, c)
            if not cands:
                break
            layout = [(cn, c.ty) for cn, (_, c) in cands.items()]
            res = self.run(render(layout, {cn: c for cn, (_, c) in cands.items()}), packets)
            if res.p4c_error or res.fab_error or res.real_error:
                break
            diffs = field_diffs(res, layout, len(packets))
            for name in cur:
                ok = [
                    c
                    for cn, (n, c) in cands.items()
                    if n == name and set(diffs.get(cn, {})) == ways[name]
                ]
                if ok:
                    cur[name], skip[name] = min(ok, key=Expr.size), 0
                else:
                    skip[name] += per
        return cur

    def minimize(
        self, n: int, layout: Layout, exprs: dict[str, Expr], diffs: Diffs, packets: list[bytes]
    ) -> None:
        """Reduce each differing field's expression; confirm it alone in a one-field program."""
        names = [f for f in diffs if f in exprs][: self.args.max_fields]
        ways = {f: set(diffs[f]) for f in names}
        small = self.reduce({f: exprs[f] for f in names}, ways, packets)
        types = dict(layout)
        for f in names:
            one = [(f, types[f])]
            src = render(one, {f: small[f]})
            res = self.run(src, packets)
            d = field_diffs(res, one, len(packets)).get(f, {})
            self.stats[f"reduced findings {'confirmed' if d else 'not reproduced alone'}"] += 1
            head = f"program {n} field {f} ({tname(types[f])}) = {small[f].text()}\n"
            head += f"differs: {','.join(sorted(d)) or 'no longer'} (full program: {','.join(sorted(ways[f]))})"
            path = self.repro(f"prog{n}_{f}", src, packets, res, head)
            self.note(f"REDUCED {head} {path}\n{show(f, d, packets)}")

    def refusal(self, n: int, layout: Layout, exprs: dict[str, Expr], res: Result) -> None:
        """Exactly one compiler refused: the fields whose one-field programs split them."""
        which = "p4c refuses, fabemu accepts" if res.p4c_error else "p4c accepts, fabemu refuses"
        self.stats[which] += 1
        for f, t in layout:
            src = render([(f, t)], {f: exprs[f]})
            one = self.run(src, [], outputs=False)
            if bool(one.p4c_error) != bool(one.fab_error):
                head = f"{which}: program {n} field {f} ({tname(t)}) = {exprs[f].text()}\n"
                head += f"p4c: {one.p4c_error or 'ok'}\nfabemu: {one.fab_error or 'ok'}"
                path = self.repro(f"prog{n}_{f}_refusal", src, [], one, head)
                self.note(f"REFUSAL {head} {path}")

    def program(self, n: int) -> None:
        """Generate, run and compare program ``n`` of the seed."""
        a, st = self.args, self.stats
        rng = random.Random(f"{a.seed}:{n}")
        gen = Gen(rng, 0.05 if rng.random() < a.edge else 0.0)
        layout = [(f"f{i}", gen.ty()) for i in range(a.fields)]
        exprs = {f: gen.num(t, rng.randint(1, a.depth)) for f, t in layout}
        packets = make_packets(rng, a.packets)
        src = render(layout, exprs)
        res = self.run(src, packets)
        st["programs"] += 1
        st["fabemu front-end crashes"] += res.fab_error.startswith("crash")
        if res.p4c_error and res.fab_error:
            st["refused by both"] += 1
        elif res.p4c_error or res.fab_error:
            self.refusal(n, layout, exprs, res)
        if res.p4c_error or res.fab_error or res.real_error:
            st["simple_switch errors"] += bool(res.real_error)
            if a.verbose or res.real_error:
                print(f"[{n}] p4c: {res.p4c_error or 'ok'} | fabemu: {res.fab_error or 'ok'}"
                      f" | simple_switch: {res.real_error or 'ok'}", flush=True)  # fmt: skip
            return
        st["compiled by both"] += 1
        st["packets compared"] += len(packets)
        diffs = field_diffs(res, layout, len(packets))
        for way in WAYS:
            st[f"differing packets ({way})"] += len(
                {s for per in diffs.values() for s, _, _ in per.get(way, [])}
            )
            st[f"differing fields ({way})"] += sum(way in per for per in diffs.values())
        if a.verbose or diffs:
            print(f"[{n}] {len(diffs)} differing field(s)", flush=True)
        if not diffs:
            return
        st["programs with differences"] += 1
        head = f"seed {a.seed} program {n}: differing " + ", ".join(sorted(diffs))
        path = self.repro(f"prog{n}", src, packets, res, head)
        for f, per in sorted(diffs.items()):
            text = exprs[f].text() if f in exprs else "(whole frame)"
            self.note(f"DIFF program {n} {f} = {text[:400]} {path}\n{show(f, per, packets)}")
        self.minimize(n, layout, exprs, diffs, packets)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=40)
    ap.add_argument("--keep", type=Path, help="write differing programs and STFs here")
    ap.add_argument("--verbose", action="store_true")
    for name, default, text in (
        ("--fields", 12, "output fields per program"),
        ("--depth", 4, "maximum expression depth"),
        ("--packets", 4, "packets per program"),
        ("--rounds", 10, "reduction rounds per program"),
        ("--max-fields", 4, "fields reduced per program"),
    ):
        ap.add_argument(name, type=int, default=default, help=text)
    ap.add_argument("--edge", type=float, default=0.15, help="share of edge-form programs")
    ap.add_argument("--no-lock", action="store_true", help="already run under flock")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-diff-") as tmp:
        fuzzer = Fuzzer(args, Path(tmp))
        for n in range(args.programs):
            fuzzer.program(n)
    print(f"--- seed {args.seed}: {args.programs} programs in {time.monotonic() - t0:.0f} s")
    for key in sorted(fuzzer.stats):
        print(f"{key}: {fuzzer.stats[key]}")
    return 1 if fuzzer.findings else 0


if __name__ == "__main__":
    sys.exit(main())
