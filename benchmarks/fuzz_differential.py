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
with the real outputs as expect lines). The script takes an exclusive ``fcntl.flock`` on
/tmp/fabemu-helpers-net.lock around each use of p4c-bm2-ss and simple_switch (shared with
other helpers); under an outer ``flock`` on it pass ``--no-lock``. Needs p4c-bm2-ss,
simple_switch and simple_switch_CLI on PATH. Exit status 1 on any finding.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import random
import string
import sys
import tempfile
import time
from collections import Counter
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
Diffs = dict[str, dict[str, Rows]]  # field -> way -> rows
_NAMES = "u8 u16 u32 u4 s4 s8 s16 s32 u64 u1 u7 s64 u3 s5"
INPUTS: Layout = [(n, (n[0] == "s", int(n[1:]))) for n in _NAMES.split()]
IN_BYTES = sum(w for _, (_, w) in INPUTS) // 8
OUT_AT = 1 + 14 + IN_BYTES  # a stored frame starts with its egress port byte
ARITH = ("+", "-", "*", "&", "|", "^", "|+|", "|-|")
CMP = ("==", "!=", "<", ">", "<=", ">=")
WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64)
PROGRAM = string.Template("""\
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header in_t { $infields }
header out_t { $outfields }
struct H { eth_t eth; in_t inp; out_t outp; }  struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.inp); transition accept; } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {
    sm.egress_spec = 1; hdr.outp.setValid();\n$body\n} }
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control VC(inout H hdr, inout M m) { apply { } }  control CC(inout H hdr, inout M m) { apply { } }
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


def cast_field(name: str, src: Ty, t: Ty) -> Expr:
    """Input field ``name`` (a ``src``) as a ``t``: two casts if sign and width change."""
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
    name = next((n for n, ft in INPUTS if ft == t), "s64" if t[0] else "u64")
    return cast_field(name, dict(INPUTS)[name], t)


class Gen:
    """Seeded well-typed expressions; ``edge``: the chance of a form p4c only warns about."""

    def __init__(self, rng: random.Random, edge: float, skip: str = "") -> None:
        self.rng, self.edge, self.skip = rng, edge, skip.split(",")

    def hit(self) -> bool:
        return self.rng.random() < self.edge

    def width(self, signed: bool) -> int:
        w = self.rng.choice(WIDTHS) if self.rng.random() < 0.6 else self.rng.randint(1, 64)
        return 2 if signed and w == 1 and not self.hit() else w

    def ty(self) -> Ty:
        return (signed := self.rng.random() < 0.4), self.width(signed)

    def const(self, t: Ty, untyped: bool = False) -> Expr:
        """A typed constant (``8w5``, ``(-8s3)``) or an untyped literal that fits ``t``;
        on an edge hit one that does not fit (p4c warns and wraps)."""
        s, w = t
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)
        pick = self.rng.choice((lo, hi, 0, 1, -1, 1 << (w - 1), None, None, None))
        v = self.rng.randint(lo, hi) if pick is None else max(lo, min(hi, pick))
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
        return cast_field(*r.choice(INPUTS), t)

    def num(self, t: Ty, d: int) -> Expr:
        """An expression of the numeric type ``t``, at most ``d`` levels deep."""
        r, (s, w) = self.rng, t
        if d <= 0 or r.random() < 0.15:
            return self.leaf(t)
        forms = ["arith"] * 4 + ["unary", "shift", "shift", "tern", "cast", "cast"]
        forms += ([] if s else ["slice", "slice", "divmod"]) + ["concat"] * (w >= 2 + 2 * s)
        forms = [f for f in forms if f not in self.skip]
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
        if kind == "cast":  # another width, the other sign, or (for bit<1>) a bool
            if t == (False, 1) and r.random() < 0.3:
                return Expr("((bit<1>){0})", t, (self.boolean(d),))
            same_sign = r.random() < 0.5 or (not s and w == 1 and not self.hit())
            src = (s, self.width(s)) if same_sign else (not s, w)
            return Expr(f"(({tname(t)}){{0}})", t, (self.num(src, d),))
        if kind == "slice":
            size = r.randint(max(w, 2), 64)
            lo = r.randint(0, size - w)
            src = (r.random() < 0.25, size)
            return Expr(f"(({{0}})[{lo + w - 1}:{lo}])", t, (self.num(src, d),))
        left = r.randint(2, w - 2) if s else r.randint(1, w - 1)  # concat: left ++ right
        right_signed = (not s if self.hit() else s) and w - left > 1  # p4c refuses mixed
        kids = (self.num((s, left), d), self.num((right_signed, w - left), d))
        return Expr("({0} ++ {1})", t, kids)

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


def reductions(e: Expr) -> list[Expr]:
    """``e`` with one inner node replaced by a child of its type or the plain leaf."""
    out = [k for k in e.kids if k.ty == e.ty and not k.untyped]  # a leaf stays a leaf:
    out += [simple_leaf(e.ty)] * bool(e.kids)  # another would be no smaller
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
    body = [f"    hdr.outp.{n} = {exprs[n].text()};" for n, _ in layout]
    body += ["    hdr.outp.pad = 0;"] if len(full) > len(layout) else []
    fields = ["".join(f"{tname(t)} {n}; " for n, t in lay) for lay in (INPUTS, full)]
    return PROGRAM.substitute(infields=fields[0], outfields=fields[1], body="\n".join(body))


def make_packets(rng: random.Random, count: int) -> list[bytes]:
    """Frames with random input values, about half of them edge values."""
    frames = []
    for seq in range(count):
        acc = 0
        for _, (_, w) in INPUTS:
            edges = (0, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 1)
            acc = acc << w | (rng.choice(edges) if rng.random() < 0.5 else rng.getrandbits(w))
        eth = bytes(5) + b"\x02" + bytes(5) + bytes([seq + 1]) + b"\x88\xb5"
        frames.append(eth + acc.to_bytes(IN_BYTES, "big") + b"\xfe\xed")
    return frames


def decode(frame: bytes | None, layout: Layout, at: int) -> dict[str, int]:
    """Raw field values of ``layout`` packed from byte ``at`` of ``frame`` ({} if short)."""
    full = with_pad(layout)
    nbytes = sum(t[1] for _, t in full) // 8
    if frame is None or len(frame) < at + nbytes:
        return {}
    bits, out = "".join(f"{b:08b}" for b in frame[at : at + nbytes]), {}
    for name, (_, w) in full:
        out[name], bits = int(bits[:w], 2), bits[w:]
    return out


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


def run_program(src: str, packets: list[bytes], work: Path, lock: bool, outputs: bool) -> Result:
    """Compile both ways; with ``outputs`` and both compiled, run the packets three ways."""
    (p4 := work / "prog.p4").write_text(src)
    res, docs = Result(), {}
    try:
        docs["fabemu"] = compile_source(src, str(p4))
    except CompileError as exc:
        res.fab_error = _line(exc)
    except Exception as exc:  # a front-end crash is a finding
        res.fab_error = "crash " + _line(exc)
    with open(LOCK, "a") as lock_file:  # the helpers' lock on the real tools
        if lock:
            fcntl.flock(lock_file, fcntl.LOCK_EX)  # closing the file releases it
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
        return run_program(src, packets, self.work, not self.args.no_lock, outputs)

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
            per, cands = max(6, 60 // max(1, len(cur))), {}
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, help="write differing programs and STFs here")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--no-lock", action="store_true", help="already run under flock")
    for name, default, text in (
        ("--edge", 0.15, "share of programs with edge forms (p4c warns, or may refuse)"),
        ("--skip", "", "forms left out, e.g. concat,shift (see Gen.num)"),
        ("--seed", 1, "the seed: program N is generated from (seed, N)"),
        ("--programs", 40, "programs to generate"),
        ("--fields", 12, "output fields per program"),
        ("--depth", 4, "maximum expression depth"),
        ("--packets", 4, "packets per program"),
        ("--rounds", 10, "reduction rounds per program"),
        ("--max-fields", 4, "fields reduced per program"),
    ):
        ap.add_argument(name, type=type(default), default=default, help=text)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-diff-") as tmp:
        fuzzer = Fuzzer(args, Path(tmp))
        for n in range(args.programs):
            fuzzer.program(n)
    print(f"--- seed {args.seed}: {args.programs} programs in {time.monotonic() - t0:.0f} s")
    print("\n".join(f"{key}: {count}" for key, count in sorted(fuzzer.stats.items())))
    return 1 if fuzzer.findings else 0


if __name__ == "__main__":
    sys.exit(main())
