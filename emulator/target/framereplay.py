"""Whole-switch decision replay: a packet's trip through a switch without parse or deparse.

The decision cache of :mod:`.flowcache` replays a pipeline's outcome but still parses,
verifies, updates checksums and deparses every packet. Here an ingress outcome is keyed
on the *frame bytes* the parser and the ingress pipeline read (plus the metadata, lazy
inputs and registers they read, as :mod:`.flowcache`), so a hit skips parse, checksum
verification and ingress; the packet crosses the TM with a partial slot list (metadata
and the header fields ingress wrote). Its egress outcome is keyed (under the ingress
outcome) on the bytes and slots egress reads, and a hit builds the frame leaving as a
byte patch of the received one: the header fields either pipeline wrote, then the updated
checksums. A miss parses the frame (once) and runs the slow path while recording.

Only programs whose parser just extracts whole headers (no lookahead, advance, stacks,
varbits or primitives), whose deparser emits them in the order parsed, that never read
``checksum_error`` (verification is skipped on a hit) and whose checksums do not cover the
payload are replayed; clones, resubmits, digests, multicast, truncation and header
validity changes take the slow path. Any control-plane write flushes. ``FABEMU_REPLAY=0``
turns it off; docs/target.md has the whole story.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from emulator import speedups
from emulator.target import flowcache
from emulator.target.flowcache import Branch, Outcome, PktProxy, Recorder, TraceList
from emulator.target.flowlazy import unkeyed
from emulator.target.packet import Pkt
from emulator.target.program import HeaderInfo

PARSER_OPS = ("extract", "set", "verify")
MAX_OUTCOMES = 1 << 16  # ingress outcomes per switch; the cache is emptied past this
#: a field's place in the frame: (slot, first byte, end byte, shift, mask, whole bytes)
Place = tuple[int, int, int, int, int, bool]


def enabled_by_env() -> bool:
    """True unless ``FABEMU_REPLAY`` (or ``FABEMU_FAST``) is 0 (:mod:`emulator.speedups`)."""
    return speedups.enabled("REPLAY")


def replay_reason(program: Any, doc: dict[str, Any]) -> str | None:
    """Why whole-switch replay cannot stand for this program's slow path, or None."""
    reason = flowcache.uncacheable_reason(program.cg.ns)
    if reason is not None:
        return reason
    for parser in doc.get("parsers", [])[:1]:
        if "lookahead" in json.dumps(parser):
            return "the parser uses lookahead"
        for state in parser.get("parse_states", []):
            for op in state.get("parser_ops", []):
                if op.get("op") not in PARSER_OPS:
                    return f"the parser uses {op.get('op')}"
                if op.get("op") == "extract" and op["parameters"][0].get("type") != "regular":
                    return "the parser extracts into a stack"
    if any(h.vl is not None for h in program.deparser.order):
        return "a deparsed header has a varbit field"
    if _mentions(doc, "checksum_error"):
        return "the program reads checksum_error"
    for calc in doc.get("calculations", []):
        if any(i.get("type") == "payload" for i in calc.get("input", [])):
            return f"calculation {calc.get('name')} covers the payload"
    return None


def _mentions(node: Any, field: str) -> bool:
    """True if a field reference ``[header, field]`` occurs anywhere in ``node``."""
    if isinstance(node, list):
        if len(node) == 2 and node[1] == field and isinstance(node[0], str):
            return True
        return any(_mentions(x, field) for x in node)
    if isinstance(node, dict):
        return any(_mentions(v, field) for k, v in node.items() if k != "header_types")
    return False


class FastPkt(Pkt):
    """A packet that may carry an ingress outcome (``origin``) instead of a parsed ``f``."""

    __slots__ = ("full", "origin")

    def __init__(self, buf: bytes, f: list[int]) -> None:
        super().__init__(buf, f)
        self.origin: Ingress | None = None
        self.full = True  # f holds every parsed header field


class _Log(list[int]):
    """A slot list noting every slot read and the order slots are first written in."""

    def __init__(self, f: list[int]) -> None:
        super().__init__(f)
        self.reads: dict[int, None] = {}
        self.order: dict[int, None] = {}

    def __getitem__(self, i: Any) -> Any:
        self.reads[i] = None
        return list.__getitem__(self, i)

    def __setitem__(self, i: Any, value: Any) -> None:
        self.order.setdefault(i, None)
        list.__setitem__(self, i, value)


class Shape:
    """Where one parse path put each header field in the frame."""

    __slots__ = ("end", "fields", "valid")

    def __init__(self, headers: list[HeaderInfo]) -> None:
        self.fields: dict[int, Place] = {}
        self.valid = tuple(h.valid for h in headers)
        bit = 0
        for h in headers:
            for i, (_, width, _) in enumerate(h.fields):
                a, b = bit // 8, (bit + width + 7) // 8
                shift = b * 8 - bit - width
                whole = shift == 0 and bit % 8 == 0 and width % 8 == 0
                self.fields[h.base + i] = (h.base + i, a, b, shift, (1 << width) - 1, whole)
                bit += width
        self.end = bit // 8


class Ingress:
    """A recorded parse + ingress run: what to replay, and the egress outcomes under it."""

    __slots__ = ("egress", "gen", "out", "restore", "shape", "slow", "writes", "written")

    def __init__(self, out: Outcome, shape: Shape, parse_writes: tuple[Any, ...], slow: bool):
        self.out, self.shape, self.slow = out, shape, slow
        self.writes = parse_writes  # metadata the parser set: constant given the key
        self.restore = tuple({s for s, _ in out.writes} | {s for s, _ in out.sym_writes})
        self.written = frozenset(s for s in self.restore if s in shape.fields)
        self.egress = _Node()
        self.gen = -1

    def replay(self, f: list[int], p: Any) -> None:
        """Bring a std-initialised ``f`` to the metadata state the recorded run left."""
        for s, v in self.writes:
            f[s] = v
        self.out.replay(f, p)


class Egress:
    """A recorded egress run and the byte patch that deparses its outcome."""

    __slots__ = ("fill", "out", "patch", "slow", "valid")

    def __init__(self, out: Outcome, slow: bool) -> None:
        self.out, self.slow = out, slow
        self.fill: tuple[Place, ...] = ()  # unwritten fields the checksums read
        self.valid: tuple[int, ...] = ()  # validity bits the checksums read
        self.patch: tuple[Place, ...] = ()  # written fields, checksum targets last


class _Node:
    """OVS-style subtables: (getter over frame and f, {key: child}) per read signature."""

    __slots__ = ("by_sig", "subtables")

    def __init__(self) -> None:
        self.subtables: list[tuple[Callable[[bytes, list[int]], Any], dict[Any, Any]]] = []
        self.by_sig: dict[Any, tuple[Callable[[bytes, list[int]], Any], dict[Any, Any]]] = {}

    def subtable(self, sig: Any) -> tuple[Callable[[bytes, list[int]], Any], dict[Any, Any]]:
        """The subtable of signature ``sig`` = (end, byte ranges, f slots), new if needed."""
        st = self.by_sig.get(sig)
        if st is None:
            st = self.by_sig[sig] = (_getter(*sig), {})
            self.subtables.append(st)
        return st


def _getter(end: int, ranges: tuple[tuple[int, int], ...], slots: tuple[int, ...]) -> Any:
    """Key function of one subtable: the frame's bytes in ``ranges``, ``f`` at ``slots``."""
    gb = itemgetter(*(slice(a, b) for a, b in ranges)) if ranges else (lambda _fr: ())
    gf = itemgetter(*slots) if slots else (lambda _f: ())
    if end:
        return lambda fr, f: (len(fr) >= end, gb(fr), gf(f))
    return lambda fr, f: (gb(fr), gf(f))


def _lookup(node: _Node | None, fr: bytes, f: list[int]) -> Any:
    """The leaf this frame and slot list reach, or None."""
    while node is not None:
        for getter, table in node.subtables:
            child = table.get(getter(fr, f))
            if child is not None:
                break
        else:
            return None
        if type(child) is not Branch:
            return child
        node = child.children.get(child.key(child.read(f)))
    return None


def _signature(slots: list[int], where: Callable[[int], Any], end: int) -> Any:
    """(end, merged byte ranges, f slots) of the reads ``slots``, classified by ``where``."""
    spans, fslots = [], set()
    for s in slots:
        w = where(s)
        if type(w) is tuple:
            spans.append((w[1], w[2]))
        elif w is not None:
            fslots.add(w)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return end, tuple(merged), tuple(sorted(fslots))


def _store(
    root: _Node, rec: Recorder, reads: list[int], first: list[int], where: Any, end: int, key_in: tuple[bytes, list[int]], leaf: Any
) -> None:  # fmt: skip
    """File ``leaf`` under the reads between lazy looks (``first``: extra reads of batch 0)."""
    node, done, extra = root, 0, first
    for upto, spec, value in rec.cuts:
        getter, table = node.subtable(_signature(extra + reads[done:upto], where, end))
        key = getter(*key_in)
        branch = table.get(key)
        if type(branch) is not Branch or branch.spec != spec:
            branch = table[key] = Branch(spec)
        node = branch.children.setdefault(value, _Node())
        done, extra, end = upto, [], 0
    getter, table = node.subtable(_signature(extra + reads[done:], where, end))
    table[getter(*key_in)] = leaf


def _write(buf: bytearray, place: Place, value: int) -> None:
    _, a, b, shift, mask, whole = place
    if whole:
        buf[a:b] = value.to_bytes(b - a, "big")
    else:
        x = int.from_bytes(buf[a:b], "big") & ~(mask << shift) | ((value & mask) << shift)
        buf[a:b] = x.to_bytes(b - a, "big")


def _run(node: Any, f: list[int], p: Any) -> None:
    while node is not None:
        node = node(f, p)


class FrameReplay:
    """The whole-switch replay of one switch's compiled program (see the module doc)."""

    def __init__(self, program: Any, drop_port: int) -> None:
        self.prog, self.drop_port = program, drop_port
        self.rec = Recorder()
        flowcache._watch(program, self.rec)
        layout = program.layout
        self.lazy = frozenset(layout.std[k] for k in flowcache.LAZY_FIELDS)
        self.hdr_slots = {
            s: h
            for h in layout.headers.values()
            if not h.metadata
            for s in range(h.base, h.base + h.span)
        }
        self.err, self.mcast = layout.std["parser_error"], layout.std["mcast_grp"]
        self.espec = layout.std["egress_spec"]
        self.root, self.gen, self.size = _Node(), 0, 0
        self.counts = dict.fromkeys(("hits", "misses", "slow", "egress_hits", "egress_misses"), 0)
        for owner in (*program.tables.values(), *program.profiles.values()):
            owner.changed = self.flush

    def flush(self) -> None:
        """Forget every outcome (the control plane changed something)."""
        self.root, self.size = _Node(), 0
        self.gen += 1

    def ingress(self, f: list[int], p: FastPkt) -> None:
        """Parse + verify + ingress for a new frame: replayed on a hit, else run (recorded)."""
        io = _lookup(self.root, p.buf, f)
        if io is None:
            self.counts["misses"] += 1
            self._record_ingress(f, p)
        elif io.slow:
            self.counts["slow"] += 1
            self.prog.parser.parse(f, p)
            self.prog.checksums.verify(f, p)
            _run(self.prog.ingress, f, p)
        else:
            self.counts["hits"] += 1
            io.replay(f, p)
            p.origin, p.full = io, False

    def egress(self, f: list[int], p: FastPkt) -> bytes | bool:
        """Egress + checksums + deparse of a packet with an ingress outcome: the frame
        (True if dropped) on a hit, else False after running the pipeline on ``p.f``."""
        io = p.origin
        assert io is not None
        if io.gen != self.gen:
            io.egress, io.gen = _Node(), self.gen
        eo = _lookup(io.egress, p.buf, f)
        if eo is not None and not eo.slow:
            self.counts["egress_hits"] += 1
            eo.out.replay(f, p)
            return True if f[self.espec] == self.drop_port else self._deparse(eo, f, p)
        self.counts["egress_misses"] += 1
        f0 = f.copy()
        if not p.full:
            self._materialise(f, p)
        if eo is not None:
            _run(self.prog.egress, p.f, p)
        else:
            self._record_egress(f0, p)
        return False

    def _materialise(self, f: list[int], p: FastPkt) -> None:
        """Give ``p`` the slot list the slow path would have: parsed, then ingress writes."""
        io = p.origin
        assert io is not None
        g = f.copy()
        p.off = 0
        self.prog.parser.parse(g, p)
        self.prog.checksums.verify(g, p)
        for s in io.restore:
            g[s] = f[s]
        p.f, p.full = g, True

    def _traced(self, start: Any, f: list[int], p: Any) -> Outcome | None:
        """Run a pipeline from ``start`` on ``f`` while recording; its outcome if cacheable."""
        rec = self.rec
        t = TraceList(f, self.lazy, rec)
        rec.start(t)
        try:
            _run(start, t, PktProxy(p, t, rec))
            out = None if rec.uncacheable else Outcome(t, rec)
        except BaseException:
            rec.uncacheable = True
            raise
        finally:
            rec.active = False
            for s in t.written:
                f[s] = unkeyed(list.__getitem__(t, s))
        self._reads = list(t.reads)
        return out

    def _record_ingress(self, f: list[int], p: FastPkt) -> None:
        prog, f0 = self.prog, f.copy()
        log = _Log(f)
        prog.parser.parse(log, p)
        f[:] = log
        prog.checksums.verify(f, p)
        shape = self._shape(f, p, log)
        pw = tuple((s, f[s]) for s in log.order if s not in self.hdr_slots)
        out = self._traced(prog.ingress, f, p)
        if out is None or shape is None:
            return
        io = Ingress(out, shape, pw, self._slow(out, shape) or f[self.mcast] != 0)
        if self.size >= MAX_OUTCOMES:
            self.flush()
        self.size += 1
        skip, hdr = {s for s, _ in pw}, self.hdr_slots

        def where(s: int) -> Any:
            if s in shape.fields:
                return shape.fields[s]
            return None if s in hdr or s in skip else s

        _store(self.root, self.rec, self._reads, list(log.reads), where, shape.end, (p.buf, f0), io)
        if not io.slow:
            p.origin = io

    def _slow(self, out: Outcome, shape: Shape) -> bool:
        """Whether an outcome needs the slow path: packet requests or validity changes."""
        if any(name != "exit" for name, _ in out.pwrites):
            return True
        written = [s for s, _ in out.writes] + [s for s, _ in out.sym_writes]
        return any(s in self.hdr_slots and s not in shape.fields for s in written)

    def _shape(self, f: list[int], p: Pkt, log: _Log) -> Shape | None:
        """The parse path's header layout, if the frame is exactly its headers in deparse
        order (as extracted) then the payload, and parsing succeeded."""
        if f[self.err]:
            return None
        valid = [h for h in self.prog.deparser.order if f[h.valid]]
        bases = {h.base for h in valid}
        extracted = [self.hdr_slots[s] for s in log.order if s in bases]
        if extracted != valid or self.prog.deparser.deparse(f, p) != p.buf:
            return None
        shape = Shape(valid)
        return shape if shape.end == p.off else None

    def _record_egress(self, f0: list[int], p: FastPkt) -> None:
        io, f = p.origin, p.f
        assert io is not None
        out = self._traced(self.prog.egress, f, p)
        if out is None:
            return
        shape = io.shape
        eo = Egress(out, self._slow(out, shape))
        if not eo.slow:
            self._plan(eo, io, f, p)
        mine, hdr = io.written, self.hdr_slots

        def where(s: int) -> Any:
            if s in mine:
                return s
            if s in shape.fields:
                return shape.fields[s]
            return None if s in hdr else s

        _store(io.egress, self.rec, self._reads, [], where, 0, (p.buf, f0), eo)

    def _plan(self, eo: Egress, io: Ingress, f: list[int], p: Pkt) -> None:
        """The fields a hit must fill before the checksums and patch after them."""
        shape, updates = io.shape, self.prog.checksums.update_list
        written = {s for s, _ in eo.out.writes} | {s for s, _ in eo.out.sym_writes}
        patched = (io.written | written) & shape.fields.keys()
        log = _Log(f)
        for _, _, calc, cond in updates:
            if cond is not None:
                cond(log, p)
            calc.data(log, p)
        eo.fill = tuple(shape.fields[s] for s in log.reads if s in shape.fields and s not in patched)
        eo.valid = tuple(s for s in log.reads if s in shape.valid)
        targets = {slot for slot, _, _, _ in updates if slot in shape.fields}
        eo.patch = tuple(shape.fields[s] for s in sorted(patched | targets))

    def _deparse(self, eo: Egress, f: list[int], p: Pkt) -> bytes:
        """The frame leaving: the received one with written fields and checksums patched."""
        fr = p.buf
        for s, a, b, shift, mask, _ in eo.fill:
            f[s] = (int.from_bytes(fr[a:b], "big") >> shift) & mask
        for s in eo.valid:
            f[s] = 1
        self.prog.checksums.update(f, p)
        buf = bytearray(fr)
        for place in eo.patch:
            _write(buf, place, f[place[0]])
        return bytes(buf)

    def stats(self) -> dict[str, int]:
        """Hits and misses of ingress and egress, outcomes held."""
        return {**self.counts, "size": self.size}
