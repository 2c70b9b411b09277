"""The programs and packets of ``fuzz_differential.py``: typed random expressions.

A program reads an input header of assorted bit<W>/int<W> fields and assigns each output
field an expression of exactly its type (operators, casts, slices, ``++``, typed and
untyped constants), generated from a seeded ``random.Random``; ``reductions`` gives an
expression's one-step simplifications for the differential fuzzer's reducer.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, replace

Ty = tuple[bool, int]  # (signed, width); width 0 is bool
BOOL: Ty = (False, 0)
Layout = list[tuple[str, Ty]]
_NAMES = "u8 u16 u32 u4 s4 s8 s16 s32 u64 u1 u7 s64 u3 s5"
INPUTS: Layout = [(n, (n[0] == "s", int(n[1:]))) for n in _NAMES.split()]
IN_BYTES = sum(w for _, (_, w) in INPUTS) // 8
OUT_AT = 1 + 14 + IN_BYTES  # a stored frame starts with its egress port byte
ARITH = ("+", "-", "*", "&", "|", "^", "|+|", "|-|")
CMP = ("==", "!=", "<", ">", "<=", ">=")
WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64)
#: the program around the ingress control: headers, parser (``$infields``, ``$outfields``)
HEAD = """\
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header in_t { $infields }
header out_t { $outfields }
struct H { eth_t eth; in_t inp; out_t outp; }  struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.inp); transition accept; } }
"""
TAIL = """\
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control VC(inout H hdr, inout M m) { apply { } }  control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.inp); pkt.emit(hdr.outp); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
PROGRAM = string.Template(
    HEAD
    + """\
control I(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {
    sm.egress_spec = 1; hdr.outp.setValid();\n$body\n} }
"""
    + TAIL
)


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
