"""Whole-switch decision replay: a packet's trip through a switch without parse or deparse.

The decision cache of :mod:`.flowcache` replays a pipeline's outcome but still parses,
verifies, updates checksums and deparses every packet. Here an ingress outcome is keyed
on the *frame bytes* the parser and the ingress pipeline read (plus the metadata, lazy
inputs and registers they read, as :mod:`.flowcache`), so a hit skips parse, checksum
verification and ingress; the packet crosses the TM with a partial slot list (metadata
and the header fields ingress wrote). Its egress outcome is keyed (under the parse shape
and the set of header fields ingress wrote, so flows share it) on the bytes and slots
egress reads, and a hit builds the frame leaving as a byte patch of the received one: the
header fields either pipeline wrote, then the updated checksums. A miss parses the frame
(once) and runs the slow path while recording; a frame missing the cache is recorded only
once ``ADMIT`` frames like it have missed (short flows run the slow path). Hits run straight-line code made per outcome
(:mod:`.framefast`).

Only programs whose parser just extracts whole headers (no lookahead, advance, stacks,
varbits or primitives), whose deparser emits them in the order parsed, that never read
``checksum_error`` (verification is skipped on a hit) and whose checksums do not cover the
payload are replayed; clones, resubmits, digests, multicast, truncation and header
validity changes take the slow path. Any control-plane write flushes. Opt-in:
``FABEMU_REPLAY=1`` turns it on; docs/target.md has the whole story.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from emulator import speedups
from emulator.target import flowcache
from emulator.target.flowcache import Outcome, Recorder
from emulator.target.flowwatch import watch
from emulator.target.framefast import deparse_function, replay_function
from emulator.target.framekeys import (
    KeyNode,
    ParsePath,
    Place,
    ReadLog,
    Shape,
    byte_ranges,
    lookup,
    store,
    write_field,
)
from emulator.target.hashes import csum16
from emulator.target.packet import Pkt
from emulator.target.pipeline import run

PARSER_OPS = ("extract", "set", "verify")
#: standard metadata set per frame before ingress (switch.py ``_ingress``)
INPUTS = ("ingress_port", "instance_type", "packet_length", "ingress_global_timestamp")
MAX_OUTCOMES = 1 << 16  # ingress outcomes per switch; the cache is emptied past this
#: a frame missing the cache is recorded only when frames like it (same bytes where the
#: fullest subtable looks) have missed this often: a record costs what ~20-40 hits save,
#: so short flows (a flow's ACKs: ~10 per switch at 256 hosts) run plain instead
ADMIT = 12


def enabled_by_env() -> bool:
    """True when ``FABEMU_REPLAY`` is 1/on/true/yes (off by default, see
    :mod:`emulator.speedups`): measured end to end it pays only where flows are long
    (docs/target.md, "Whole-switch replay")."""
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


class Ingress:
    """A recorded parse + ingress run: what to replay, and the egress outcomes under it."""

    __slots__ = ("egress", "gen", "replay", "restore", "shape", "slow", "written")

    def __init__(
        self, out: Outcome, shape: Shape, pw: tuple[Any, ...], slow: bool, base: Base
    ) -> None:
        self.shape, self.slow = shape, slow
        self.restore = tuple({s for s, _ in out.writes} | {s for s, _ in out.sym_writes})
        self.written = frozenset(s for s in self.restore if s in shape.fields)
        self.egress = KeyNode()
        self.gen = -1
        self.replay: Any = None
        if slow:
            return
        # the template with the constant writes (the parser's metadata sets: constant
        # given the key; the run's) done: one list copy instead of a write per slot
        filled = base.template.copy()
        for s, v in (*pw, *out.writes):
            filled[s] = v
        done = {s for s, _ in (*pw, *out.writes)}
        #: brings ``f`` (the template with the per-frame inputs set) to the state the
        #: recorded run left, with its effects; the inputs no constant write overwrote kept
        #: (the outcome itself is not kept: fewer objects for the garbage collector)
        self.replay = replay_function(out, filled, tuple(s for s in base.inputs if s not in done))


class Base(NamedTuple):
    """What a std-initialised slot list of a new frame is: the template, then ``inputs``."""

    template: list[int]
    inputs: tuple[int, ...]


class Egress:
    """A recorded egress run and the byte patch that deparses its outcome."""

    __slots__ = ("csums", "deparse", "fill", "patch", "replay", "slow", "valid", "written")

    def __init__(self, out: Outcome, slow: bool) -> None:
        self.slow = slow
        self.written = frozenset(s for s, _ in (*out.writes, *out.sym_writes))
        #: out.replay in straight-line code (the outcome itself is not kept)
        self.replay = None if slow else replay_function(out)
        #: the byte patch as straight-line code (set by FrameReplay._plan where it can be)
        self.deparse: Any = None
        #: csum16 checksums over whole bytes of the frame: (target, mask, byte ranges, cond)
        self.csums: tuple[tuple[Place, int, tuple[tuple[int, int], ...], Any], ...] | None = None
        self.fill: tuple[Place, ...] = ()  # unwritten fields the checksums read
        self.valid: tuple[int, ...] = ()  # validity bits the checksums read
        self.patch: tuple[Place, ...] = ()  # written fields, checksum targets last


class FrameReplay:
    """The whole-switch replay of one switch's compiled program (see the module doc)."""

    def __init__(self, program: Any, drop_port: int) -> None:
        self.prog, self.drop_port = program, drop_port
        self.rec = Recorder()
        watch(program, self.rec)
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
        self.base = Base(layout.template, tuple(layout.std[k] for k in INPUTS))
        self.root, self.gen, self.size = KeyNode(), 0, 0
        self.paths: dict[tuple[Any, ...], ParsePath] = {}
        self.seen: dict[Any, int] = {}  # misses not recorded yet, by fingerprint
        self.shapes: dict[tuple[str, ...], Shape] = {}
        self.plans: dict[tuple[Shape, frozenset[int]], tuple[Any, ...]] = {}  # see _plan
        self.getters: dict[Any, Any] = {}  # subtable key functions, by signature
        #: egress trees by (shape, header fields ingress wrote): outcomes shared by flows
        self.egress_roots: dict[tuple[Shape, frozenset[int]], KeyNode] = {}
        self.counts = dict.fromkeys(("hits", "misses", "slow", "egress_hits", "egress_misses"), 0)
        for owner in (*program.tables.values(), *program.profiles.values()):
            owner.changed = self.flush

    def flush(self) -> None:
        """Forget every outcome (the control plane changed something)."""
        self.root, self.size, self.egress_roots = KeyNode(), 0, {}
        self.gen += 1

    def ingress(self, f: list[int], p: Pkt) -> None:
        """Parse + verify + ingress for a new frame: replayed on a hit, else run (recorded)."""
        io = lookup(self.root, p.buf, f)
        if io is None and self._admit(p.buf, f):
            self.counts["misses"] += 1
            self._record_ingress(f, p)
        elif io is None or io.slow or len(p.buf) < io.shape.end:  # too short: parse fails
            self.counts["slow"] += 1
            self.prog.parser.parse(f, p)
            self.prog.checksums.verify(f, p)
            run(self.prog.ingress, f, p)
        else:
            self.counts["hits"] += 1
            io.replay(f, p)
            p.origin, p.full = io, False

    def _admit(self, fr: bytes, f: list[int]) -> bool:
        """Whether to record this missing frame now (see ADMIT)."""
        subtables = self.root.subtables
        if not subtables:
            return True
        getter = subtables[0][0]
        key = (getter, getter(fr, f))
        n = self.seen.get(key, 0) + 1
        if n >= ADMIT:
            self.seen.pop(key, None)
            return True
        if len(self.seen) >= MAX_OUTCOMES:
            self.seen.clear()
        self.seen[key] = n
        return False

    def egress(self, f: list[int], p: Pkt) -> bytes | bool:
        """Egress + checksums + deparse of a packet with an ingress outcome: the frame
        (True if dropped) on a hit, else False after running the pipeline on ``p.f``."""
        io = p.origin
        assert io is not None
        if io.gen != self.gen:
            key = (io.shape, io.written)
            io.egress = self.egress_roots.get(key) or self.egress_roots.setdefault(key, KeyNode())
            io.gen = self.gen
        eo = lookup(io.egress, p.buf, f)
        if eo is not None and not eo.slow:
            self.counts["egress_hits"] += 1
            eo.replay(f, p)
            if f[self.espec] == self.drop_port:
                return True
            return eo.deparse(f, p.buf) if eo.deparse else self._deparse(eo, f, p)
        self.counts["egress_misses"] += 1
        f0 = f.copy()
        if not p.full:
            self._materialise(f, p)
        if eo is not None:
            run(self.prog.egress, p.f, p)
        else:
            self._record_egress(f0, p)
        return False

    def _materialise(self, f: list[int], p: Pkt) -> None:
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
        t, out = flowcache.traced_run(start, f, p, self.rec, self.lazy)
        self._reads = list(t.reads)
        return out

    def _record_ingress(self, f: list[int], p: Pkt) -> None:
        prog, f0, path = self.prog, f.copy(), list[Any]()
        prog.parser.parse(f, p, path)
        prog.checksums.verify(f, p)
        info = self.paths.get(tuple(path))
        if info is None:
            docs = [prog.parser.state_docs[fn] for fn in path]
            info = self.paths[tuple(path)] = ParsePath(prog.layout, self.hdr_slots, docs)
        shape = self._shape(f, p, info)
        pw = tuple((s, f[s]) for s in info.sets)
        out = self._traced(prog.ingress, f, p)
        if out is None or shape is None:
            return
        io = Ingress(out, shape, pw, self._slow(out, shape) or f[self.mcast] != 0, self.base)
        if self.size >= MAX_OUTCOMES:
            self.flush()
        self.size += 1
        skip, hdr = {s for s, _ in pw}, self.hdr_slots

        def where(s: int) -> Any:
            if s in shape.fields:
                return shape.fields[s]
            return None if s in hdr or s in skip else s

        key_in = (p.buf, f0)
        store(self.root, self.rec, self._reads, info.reads, where, 0, key_in, io, self.getters)
        if not io.slow:
            p.origin = io

    def _slow(self, out: Outcome, shape: Shape) -> bool:
        """Whether an outcome needs the slow path: packet requests or validity changes."""
        if any(name != "exit" for name, _ in out.pwrites):
            return True
        written = [s for s, _ in out.writes] + [s for s, _ in out.sym_writes]
        return any(s in self.hdr_slots and s not in shape.fields for s in written)

    def _shape(self, f: list[int], p: Pkt, info: ParsePath) -> Shape | None:
        """The parse path's header layout, if the frame is exactly its headers in deparse
        order (as extracted) then the payload, and parsing succeeded."""
        if f[self.err]:
            return None
        valid = [h for h in self.prog.deparser.order if f[h.valid]]
        if valid != info.extracts or self.prog.deparser.deparse(f, p) != p.buf:
            return None
        names = tuple(h.name for h in valid)
        shape = self.shapes.get(names)
        if shape is None:
            shape = self.shapes[names] = Shape(valid)
        return shape if shape.end == p.off else None

    def _record_egress(self, f0: list[int], p: Pkt) -> None:
        io, f = p.origin, p.f
        assert io is not None
        out = self._traced(self.prog.egress, f, p)
        if out is None:
            return
        shape = io.shape
        eo = Egress(out, self._slow(out, shape))
        if not eo.slow:
            self._plan(eo, io, f, p)
            eo.deparse = deparse_function(eo)
        mine, hdr = io.written, self.hdr_slots

        def where(s: int) -> Any:
            if s in mine:
                return s
            if s in shape.fields:
                return shape.fields[s]
            return None if s in hdr else s

        store(io.egress, self.rec, self._reads, [], where, 0, (p.buf, f0), eo, self.getters)

    def _plan(self, eo: Egress, io: Ingress, f: list[int], p: Pkt) -> None:
        """The fields a hit must fill before the checksums and patch after them."""
        shape, updates = io.shape, self.prog.checksums.update_list
        patched = (io.written | eo.written) & shape.fields.keys()
        key = (shape, frozenset(patched))
        plan = self.plans.get(key)
        if plan is not None:  # shape-determined (below): flows of one shape share it
            eo.csums, eo.fill, eo.valid, eo.patch = plan
            return
        conds, log = ReadLog(f), ReadLog(f)
        for _, _, calc, cond in updates:
            if cond is not None:
                cond(conds, p)
            calc.data(log, p)
        log.reads.update(conds.reads)
        eo.valid = tuple(s for s in log.reads if s in shape.valid)
        if not any(s in shape.fields for s in conds.reads):
            eo.csums = self._csums(shape)
        hdr = self.hdr_slots
        if eo.csums is not None and all(s in hdr and hdr[s].valid == s for s in conds.reads):
            # conditions on header validity only: fixed by the shape, decided here once
            eo.csums = tuple((pl, m, r, None) for pl, m, r, c in eo.csums if c is None or c(f, p))
            eo.valid = ()
            eo.patch = tuple(shape.fields[s] for s in sorted(patched))
            # what the conditions read is fixed by the shape, so is everything here
            self.plans[key] = (eo.csums, eo.fill, eo.valid, eo.patch)
            return
        if eo.csums is not None:  # checksums computed on the patched bytes: nothing to fill
            eo.patch = tuple(shape.fields[s] for s in sorted(patched))
            return
        eo.fill = tuple(
            shape.fields[s] for s in log.reads if s in shape.fields and s not in patched
        )
        targets = {slot for slot, _, _, _ in updates if slot in shape.fields}
        eo.patch = tuple(shape.fields[s] for s in sorted(patched | targets))

    def _csums(self, shape: Shape) -> Any:
        """The checksum updates as csum16 over byte ranges of the frame, if every one is
        (target and inputs whole bytes of parsed headers), else None."""
        out = []
        for slot, mask, calc, cond in self.prog.checksums.update_list:
            if calc.algo != "csum16" or calc.params is not None or slot not in shape.fields:
                return None
            ranges = byte_ranges(self.prog.layout, calc.inputs, shape)
            if ranges is None:
                return None
            out.append((shape.fields[slot], mask, ranges, cond))
        return tuple(out)

    def _deparse(self, eo: Egress, f: list[int], p: Pkt) -> bytes:
        """The frame leaving: the received one with written fields and checksums patched."""
        fr = p.buf
        if eo.csums is not None:
            for s in eo.valid:
                f[s] = 1
            buf = bytearray(fr)
            for s, a, b, shift, mask, whole in eo.patch:  # write_field, inline
                if whole:
                    buf[a:b] = f[s].to_bytes(b - a, "big")
                else:
                    write_field(buf, (s, a, b, shift, mask, whole), f[s])
            for place, mask, ranges, cond in eo.csums:
                if cond is None or cond(f, p):
                    f[place[0]] = v = csum16(b"".join([buf[a:b] for a, b in ranges])) & mask
                    write_field(buf, place, v)
            return bytes(buf)
        for s, a, b, shift, mask, _ in eo.fill:
            f[s] = (int.from_bytes(fr[a:b], "big") >> shift) & mask
        for s in eo.valid:
            f[s] = 1
        self.prog.checksums.update(f, p)
        buf = bytearray(fr)
        for place in eo.patch:
            write_field(buf, place, f[place[0]])
        return bytes(buf)

    def stats(self) -> dict[str, int]:
        """Hits and misses of ingress and egress, outcomes held."""
        return {**self.counts, "size": self.size}
