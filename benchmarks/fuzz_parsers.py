"""Seeded differential fuzzing of P4 parsers: real p4c + BMv2 against fabemu.

Each v1model program has a random parser: a graph of states that extract headers of odd
field widths (re-extracting some), a header stack filled by a loop on ``last``, ``advance``,
a varbit header sized by an earlier field, ``verify`` with a custom error, metadata stores
(some overwritten by a later state: p4c drops those), and ``select``s
on fields, tuples and ``lookahead`` with exact, masked and ``_`` cases, ``default``,
``accept`` and ``reject``. Packets are built by walking the graph (each key set to a case's
value), then some are cut short, so every parser error occurs. Ingress records the parser
error and every header's validity in an ``out`` header; the deparser emits everything.
Frames run three ways, as in ``fuzz_differential.py`` (real p4c JSON on simple_switch, the
reference; fabemu's front end + built-in target; p4c's JSON on the built-in target) and are
compared byte for byte. A differing program is kept with an STF of the real outputs.

    python benchmarks/fuzz_parsers.py --seed 1 --programs 40 --keep /tmp/fuzzparse/s1
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fuzz_differential import WholeProgramFuzzer, drive, run_program  # noqa: E402

WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 16, 24, 32, 48, 64)
ERRORS = ("NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort")
ERRORS += ("ParserInvalidArgument", "Bad")  # Bad: the program's own, for verify
PROGRAM = """#include <core.p4>
#include <v1model.p4>
error { Bad }
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header out_t { bit<8> err; bit<32> valid; bit<16> m0; bit<8> m1; }
%(types)s
struct headers_t { eth_t eth; out_t res; %(members)s }
struct meta_t { bit<16> m0; bit<8> m1; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
%(states)s
}
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.res.setValid();
        hdr.res.err = 255;
%(errors)s
        hdr.res.valid = 0;
        hdr.res.m0 = m.m0;
        hdr.res.m1 = m.m1;
%(valid)s
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
%(emits)s
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@dataclass(frozen=True)
class Hdr:
    """A header type and its one instance in ``headers_t`` (``stack`` > 0: a stack)."""

    name: str
    fields: tuple[tuple[str, int], ...]
    stack: int = 0
    varbit: int = 0  # the last field is varbit<varbit> (its width in ``fields`` is 0)

    def bits(self) -> int:
        return sum(w for _, w in self.fields)

    def decl(self) -> str:
        fs = " ".join(f"bit<{w}> {n};" for n, w in self.fields if w)
        if self.varbit:
            fs += f" varbit<{self.varbit}> {self.fields[-1][0]};"
        return f"header {self.name}_t {{ {fs} }}"

    def member(self) -> str:
        return f"{self.name}_t{f'[{self.stack}]' if self.stack else ''} {self.name};"

    def offset(self, fname: str) -> tuple[int, int]:
        """(bit offset from the header's start, width) of a field."""
        at = 0
        for n, w in self.fields:
            if n == fname:
                return at, w
            at += w
        raise KeyError(fname)


@dataclass
class State:
    """One parser state: what it takes from the packet, then its ``select``."""

    name: str
    hdr: Hdr | None = None  # extracted (a stack: ``.next``, looping on ``.last.more``)
    pre: list[str] = field(default_factory=list)  # statements before the extract
    post: list[str] = field(default_factory=list)  # statements after it
    skip: int = 0  # bits advanced after the extract
    lenfrom: tuple[Hdr, str] | None = None  # the varbit's length: that field's low 3 bits
    keys: list[tuple[str, int, Hdr | None, str]] = field(default_factory=list)  # text, width
    cases: list[tuple[list[tuple[int, int] | None], str]] = field(default_factory=list)
    default: str = "accept"  # "": no default (a miss rejects)
    verify: tuple[str, int, int] | None = None  # verify(field != value, error.Bad)
    meta: str = ""  # m.m0 = (bit<16>)field, then m.m0 is a select key


def fields_for(rng: random.Random, prefix: str, n: int) -> tuple[tuple[str, int], ...]:
    """``n`` fields of assorted widths, padded to whole bytes (``prefix`` + index)."""
    fs = [(f"{prefix}{i}", rng.choice(WIDTHS)) for i in range(n)]
    if (pad := -sum(w for _, w in fs) % 8) != 0:
        fs.append((f"{prefix}p", pad))
    return tuple(fs)


class ParserGen:
    """One random program and the packets that walk its parser."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        r = rng
        self.hdrs = [
            Hdr(f"h{i}", fields_for(r, "f", r.randint(1, 4))) for i in range(r.randint(2, 4))
        ]
        if r.random() < 0.5:
            self.hdrs.append(Hdr("s", (("x", 7), ("more", 1)), stack=r.randint(1, 3)))
        if r.random() < 0.4:
            self.hdrs.append(Hdr("vb", (("t", 8), ("d", 0)), varbit=r.choice((8, 16, 32))))
        self.states: list[State] = []

    # -- the graph ------------------------------------------------------------------------

    def graph(self) -> None:
        """States in topological order; each transitions only to later ones (a stack loops)."""
        r = self.rng
        start = State("start", None)
        start.keys = [("hdr.eth.type", 16, None, "type")]
        self.states = [start]
        plain = [h for h in self.hdrs if not h.stack and not h.varbit]
        for i in range(r.randint(2, 5)):
            h = r.choice(self.hdrs if i else plain)
            st = State(f"s{i}", h)
            if h.varbit:
                src = r.choice(plain)
                st.lenfrom = (src, r.choice([n for n, w in src.fields if w]))
            if r.random() < 0.15:
                st.skip = 8 * r.randint(1, 3)
            for where in (st.pre, st.post):  # stores a later state may overwrite
                if r.random() < 0.4:
                    where.append(f"m.m1 = {r.randint(1, 255)};")
            if r.random() < 0.2 and not h.stack:
                n, w = r.choice([f for f in h.fields if f[1]])
                st.verify = (n, w, r.getrandbits(min(w, 3)))
            if r.random() < 0.2 and not h.stack and not h.varbit:
                wide = [n for n, w in h.fields if w >= 16]
                if wide:
                    st.meta = r.choice(wide)
            self.states.append(st)
        for i, st in enumerate(self.states):
            later = [s.name for s in self.states[i + 1 :]] * 2 + ["accept", "reject"]
            self.select(st, later)

    def select(self, st: State, later: list[str]) -> None:
        r = self.rng
        h = st.hdr
        if h is not None and not st.keys:
            options = [(f"hdr.{h.name}.{n}", w, h, n) for n, w in h.fields if w]
            if h.stack:
                options = [(f"hdr.{h.name}.last.more", 1, h, "more")]
            if r.random() < 0.25 or not options:
                w = r.choice((4, 8, 12, 16))
                st.keys = [(f"pkt.lookahead<bit<{w}>>()", w, None, "")]
            else:
                st.keys = r.sample(options, min(len(options), r.choice((1, 1, 2))))
            if st.meta:
                st.keys.insert(0, ("m.m0", 16, h, "@" + st.meta))
        if h is not None and h.stack:
            st.cases = [([(0, 1)], r.choice(later))]
            st.default = st.name if r.random() < 0.8 else r.choice(later)
            return
        for _ in range(r.randint(0, 3)):
            vals: list[tuple[int, int] | None] = []
            for _, w, _, _ in st.keys:
                full = (1 << w) - 1
                if len(st.keys) > 1 and r.random() < 0.2:
                    vals.append(None)
                elif r.random() < 0.25:
                    mask = r.getrandbits(w) or 1
                    vals.append((r.getrandbits(w) & mask, mask))
                else:
                    vals.append((r.choice((0, full, 1, r.getrandbits(w))), full))
            st.cases.append((vals, r.choice(later)))
        st.default = r.choice(later)
        if st.cases and r.random() < 0.3:
            st.default = ""

    # -- rendering --------------------------------------------------------------------------

    def state_text(self, st: State) -> str:
        body = list(st.pre)
        if st.name == "start":
            body.append("pkt.extract(hdr.eth);")
        elif st.hdr is not None and st.hdr.stack:
            body.append(f"pkt.extract(hdr.{st.hdr.name}.next);")
        elif st.lenfrom is not None:
            src, n = st.lenfrom
            body.append(f"pkt.extract(hdr.{src.name});")
            body.append(f"pkt.extract(hdr.{st.hdr.name}, (bit<32>)(hdr.{src.name}.{n} & 7) * 8);")
        elif st.hdr is not None:
            body.append(f"pkt.extract(hdr.{st.hdr.name});")
        body += st.post
        if st.verify is not None:
            n, _, value = st.verify
            body.append(f"verify(hdr.{st.hdr.name}.{n} != {value}, error.Bad);")
        if st.meta:
            body.append(f"m.m0 = (bit<16>)hdr.{st.hdr.name}.{st.meta};")
        if st.skip:
            body.append(f"pkt.advance({st.skip});")
        if not st.cases:
            body.append(f"transition {st.default};")
        else:
            keys = ", ".join(k for k, *_ in st.keys)
            lines = [f"transition select({keys}) {{"]
            for vals, to in st.cases:
                parts = [
                    "_" if v is None else case_text(*v, w) for v, (_, w, _, _) in zip(vals, st.keys)
                ]
                label = parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"
                lines.append(f"    {label}: {to};")
            lines += [f"    default: {st.default};"] if st.default else []
            lines.append("}")
            body += lines
        inner = "\n".join("        " + ln for ln in body)
        return f"    state {st.name} {{\n{inner}\n    }}"

    def render(self) -> str:
        valid = []
        bit = 0
        for h in self.hdrs:
            for i in range(h.stack or 1):
                ref = f"hdr.{h.name}[{i}]" if h.stack else f"hdr.{h.name}"
                valid.append(f"        if ({ref}.isValid()) {{ hdr.res.valid[{bit}:{bit}] = 1; }}")
                bit += 1
        errors = [
            f"        if (sm.parser_error == error.{e}) {{ hdr.res.err = {i}; }}"
            for i, e in enumerate(ERRORS)
        ]
        emits = ["pkt.emit(hdr.eth);", "pkt.emit(hdr.res);"] + [
            f"pkt.emit(hdr.{h.name});" for h in self.hdrs
        ]
        return PROGRAM % {
            "types": "\n".join(h.decl() for h in self.hdrs),
            "members": " ".join(h.member() for h in self.hdrs),
            "states": "\n".join(self.state_text(s) for s in self.states),
            "errors": "\n".join(errors),
            "valid": "\n".join(valid),
            "emits": "\n".join("        " + e for e in emits),
        }


def case_text(value: int, mask: int, width: int) -> str:
    if mask == (1 << width) - 1:
        return f"{width}w{value}"
    return f"{width}w{value} &&& {width}w{mask}"


class Bits:
    """A packet being built: random bits, extended as a walk consumes them, some then set."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.value, self.length, self.cursor = rng, 0, 0, 0

    def ensure(self, length: int) -> None:
        if length > self.length:
            more = length - self.length
            self.value = self.value << more | self.rng.getrandbits(more)
            self.length = length

    def take(self, bits: int) -> int:
        """Consume ``bits`` from the cursor; the bit offset where they start."""
        at, self.cursor = self.cursor, self.cursor + bits
        self.ensure(self.cursor)
        return at

    def get(self, at: int, width: int) -> int:
        return self.value >> (self.length - at - width) & ((1 << width) - 1)

    def set(self, at: int, width: int, value: int, mask: int) -> None:
        self.ensure(at + width)
        old = self.get(at, width)
        new = (old & ~mask | value & mask) & ((1 << width) - 1)
        shift = self.length - at - width
        self.value = self.value & ~(((1 << width) - 1) << shift) | new << shift

    def frame(self) -> bytes:
        self.ensure(-(-self.length // 8) * 8)
        return self.value.to_bytes(self.length // 8, "big")


class Walk:
    """One packet: a random path through ``gen``'s parser, keys set to take it."""

    def __init__(self, gen: ParserGen) -> None:
        self.gen, self.rng, self.buf = gen, gen.rng, Bits(gen.rng)

    def extract(self, st: State) -> int | None:
        """Consume what ``st`` extracts; its header's start bit (None: the varbit is too long)."""
        if st.name == "start":
            return self.buf.take(112)
        assert st.hdr is not None
        if st.lenfrom is not None:
            src, n = st.lenfrom
            at, w = src.offset(n)
            start = self.buf.take(src.bits())
            fit = st.hdr.varbit // 8
            low = self.rng.randint(0, fit) if self.rng.random() < 0.6 else self.rng.randint(0, 7)
            if w >= 3:
                self.buf.set(start + at + w - 3, 3, low, 7)
            size = (self.buf.get(start + at, w) & 7) * 8
            if size > st.hdr.varbit:
                return None
            return self.buf.take(8 + size)
        start = self.buf.take(st.hdr.bits())
        if st.verify is not None and self.rng.random() < 0.35:
            n, w, value = st.verify
            self.buf.set(start + st.hdr.offset(n)[0], w, value, (1 << w) - 1)
        return start

    def follow(self, st: State, start: int) -> str:
        """Pick a branch of ``st``'s select and set its keys to take it; the next state."""
        pick = self.rng.randrange(len(st.cases) + 1)
        if pick == len(st.cases):
            if st.hdr is not None and st.hdr.stack:
                self.buf.set(start + 7, 1, 1, 1)
            return st.default
        look = self.buf.cursor
        vals, to = st.cases[pick]
        for (_, w, h, fname), v in zip(st.keys, vals):
            if v is None:
                continue
            if fname == "type":
                at = 96
            elif fname.startswith("@"):  # m.m0: the field's low 16 bits
                assert h is not None
                off, fw = h.offset(fname[1:])
                at = start + off + fw - 16
            elif h is None:
                at, look = look, look + w  # a lookahead: the bits after the cursor
            else:  # a field of the header just extracted (a stack element: its `more` bit)
                at = start + (7 if h.stack else h.offset(fname)[0])
            self.buf.set(at, w, *v)
        return to

    def packet(self, seq: int) -> bytes:
        states = {s.name: s for s in self.gen.states}
        st: State | None = states["start"]
        for _ in range(16):
            assert st is not None
            start = self.extract(st)
            if start is None:
                break
            if st.skip:
                self.buf.take(st.skip)
            to = self.follow(st, start)
            if to in ("accept", "reject", ""):
                break
            st = states[to]
        frame = bytearray(self.buf.frame() + self.rng.randbytes(self.rng.randint(0, 6)))
        frame[11] = seq + 1
        if self.rng.random() < 0.35:
            del frame[self.rng.randint(14, len(frame)) :]
        return bytes(frame)


class Fuzzer(WholeProgramFuzzer):
    """Parser programs, kept whole when they differ."""

    def program(self, n: int) -> None:
        """Generate, run and compare program ``n`` of the seed."""
        a, st = self.args, self.stats
        gen = ParserGen(random.Random(f"parse:{a.seed}:{n}"))
        gen.graph()
        src = gen.render()
        packets = [Walk(gen).packet(seq) for seq in range(a.packets)]
        res = run_program(src, packets, self.work, a.lock, True)
        if not self.compared(n, src, packets, res):
            return
        # the error code is the byte after eth (14 bytes), after the port byte of real's frames
        errs = Counter(
            ERRORS[f[15]] if len(f) > 15 and f[15] < len(ERRORS) else "?" for f in res.real.values()
        )
        st.update(f"parser error {e}" for e in errs.elements())
        ways = {w for w, got in res.ways.items() if got != res.real}
        if a.verbose or ways:
            print(
                f"[{n}] states {len(gen.states)}, differing: {sorted(ways) or 'none'}", flush=True
            )
        if ways:
            st["programs with differences"] += 1
            bad = [
                s
                for s in range(len(packets))
                if any(g.get(s) != res.real.get(s) for g in res.ways.values())
            ]
            head = (
                f"DIFF seed {a.seed} program {n}: {','.join(sorted(ways))} differ on packets {bad}"
            )
            self.keep(f"prog{n}", src, packets, res, head)


OPTIONS = (
    ("--programs", 30, "programs to generate"),
    ("--packets", 8, "packets per program"),
)


def main(argv: list[str] | None = None) -> int:
    """Fuzz parsers; the options and counts as ``fuzz_differential.py``'s."""
    return drive(__doc__ or "", OPTIONS, Fuzzer, argv)


if __name__ == "__main__":
    sys.exit(main())
