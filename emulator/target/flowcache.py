"""A megaflow-style decision cache for the built-in target's ingress and egress pipelines.

Open vSwitch remembers the outcome of a pipeline run keyed on exactly the values the run
*read*; a later packet that agrees on those values takes the same path and ends in the
same state, so the outcome is replayed instead of recomputed. Recording (a miss) runs the
pipeline on a :class:`TraceList` copy of the slot list and a :class:`PktProxy` for the
packet, noting reads, writes, v1model requests and side effects (counters, register
writes, direct counters); lazy inputs (:mod:`.flowlazy`) make outcomes branch on what a
run looked at, not on time stamps or queue depths it merely carried. Meters, random
numbers, packet-context reads and exceptions make a run uncacheable; any control-plane
write flushes. ``FABEMU_FLOWCACHE=0`` turns it off. docs/target.md has the whole story.
"""

from __future__ import annotations

import random
import struct
import types
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from emulator import speedups
from emulator.target import codegen, fastmatch, primitives, union_stacks
from emulator.target.externs import CounterArray, MeterArray, RegisterArray
from emulator.target.flowlazy import (
    Lazy,
    Ops,
    Probe,
    Sym,
    branch_function,
    plain,
    unkeyed,
)
from emulator.target.flowwatch import Watchers, watch
from emulator.target.packet_parser import Calculation, Deparser, emit_vl, extract_vl
from emulator.target.program import HeaderInfo, StackInfo
from emulator.target.tables import Table

#: time-valued standard metadata: carried lazily, keyed only where a run looks at them
LAZY_FIELDS = (
    "ingress_global_timestamp",
    "egress_global_timestamp",
    "enq_timestamp",
    "deq_timedelta",
    "enq_qdepth",
    "deq_qdepth",
    "packet_length",
)
MAX_ENTRIES = 1 << 16  # outcomes per pipeline; the cache is emptied when it grows past this
WINDOW = 512  # runs over which the hit rate is judged
MAX_MISS_RATE = 0.1  # above this a window's misses cost more than its hits save
BYPASS = 4096  # runs left uncached after such a window
_KNOWN_FUNCS = {
    codegen.to_signed,
    codegen._sat,
    codegen._usat,
    primitives._push,
    primitives._pop,
    *union_stacks.RUNTIME_FUNCS,
    primitives._log_msg,
    extract_vl,
    emit_vl,
    int.from_bytes,
}
_PLAIN = (int, str, bytes, bool, tuple, frozenset, type(None), type, HeaderInfo, StackInfo, union_stacks.UnionStackInfo)  # fmt: skip
_STATEFUL = (RegisterArray, CounterArray, MeterArray, Calculation, Deparser)


def enabled_by_env() -> bool:
    """True when ``FABEMU_FLOWCACHE`` is 1/on/true/yes (off by default, see
    :mod:`emulator.speedups`).

    Off by default because end to end it is not yet a clear win: measured 0.9-1.4x
    (the flagship 0.9x) while the pipelines are only ~20% of a hop's cost (docs/target.md).
    """
    return speedups.enabled("FLOWCACHE")


def uncacheable_reason(ns: dict[str, Any]) -> str | None:
    """Why a program's generated code may touch state the recorder cannot see, or None."""
    for name, obj in ns.items():
        if name in ("__builtins__", "_vsets", "_registers") or name.startswith(fastmatch.PREFIX):
            continue  # fastmatch's names hold entries: control-plane state, flushed on change
        if isinstance(obj, (*_PLAIN, *_STATEFUL, random.Random)):
            continue
        if isinstance(obj, types.FunctionType) and obj.__globals__ is ns:
            continue  # generated code: watched through f and p
        if isinstance(obj, types.MethodType) and isinstance(obj.__self__, Table):
            continue
        if isinstance(getattr(obj, "__self__", None), struct.Struct):
            continue  # a parser's header unpacker (target/unpack.py): reads only its arguments
        if any(obj == k for k in _KNOWN_FUNCS):
            continue
        return f"{name} is a {type(obj).__name__} the decision cache cannot watch"
    return None


class Recorder:
    """What the pipeline run being recorded did besides changing slots."""

    def __init__(self) -> None:
        self.active = False
        #: the externs' and tables' reporting versions, in place only while recording
        #: (:func:`.flowwatch.watch`): runs not recorded pay nothing for them
        self.watchers = Watchers()
        self.uncacheable = False
        self.effects: list[tuple[Callable[[Any, Any], None], Any, Any]] = []
        self.pwrites: dict[str, Any] = {}
        self.trace: TraceList | None = None
        self.cuts: list[tuple[int, tuple[Any, ...], Any]] = []
        self.reg_written: set[tuple[int, int]] = set()
        self._syms: dict[tuple[Probe, Ops], Sym] = {}

    def sym(self, probe: Probe, ops: Ops) -> Sym:
        """One :class:`Sym` per (probe, ops), shared by every outcome (fewer allocations)."""
        s = self._syms.get((probe, ops))
        if s is None:
            s = self._syms[(probe, ops)] = Sym(probe, ops)
        return s

    def start(self, trace: TraceList) -> None:
        """Begin recording one run on ``trace`` (the externs' watchers put in place)."""
        self.active, self.uncacheable, self.trace = True, False, trace
        self.watchers.install()
        self.effects, self.pwrites, self.cuts, self.reg_written = [], {}, [], set()

    def effect(self, fn: Callable[[Any, Any], None], a: Any, b: Any) -> None:
        """Note a side effect to replay on a hit; lazy arguments are recomputed then."""
        if self.active:
            self.effects.append((fn, _replayable(a), _replayable(b)))

    def spoil(self) -> None:
        """The run being recorded read state that is not in its key."""
        if self.active:
            self.uncacheable = True

    def branch(self, probe: Probe, ops: Ops, cmp: tuple[str, int] | None, value: Any) -> None:
        """The run's path depends on a lazy input (see :mod:`.flowlazy`): a tree branch."""
        if self.active and self.trace is not None:
            self.cuts.append((len(self.trace.reads), (probe, ops, cmp), value))

    def register(self, read: Callable[[int], int], index: int) -> Any:
        """Read a register cell: lazy unless this run wrote it (then its value is known)."""
        value = int(read(index))
        if not self.active or (id(read.__self__), index) in self.reg_written:  # type: ignore[attr-defined]
            return value
        return Lazy(value, ("reg", read, index), value, (), self)

    def reg_write(self, write: Callable[[int, int], None], index: int, value: Any) -> None:
        """A register cell was written: replayed on a hit; later reads of it are known."""
        self.reg_written.add((id(write.__self__), index))  # type: ignore[attr-defined]
        self.effects.append((write, index, _replayable(value)))


def _replayable(value: Any) -> Any:
    return value.sym() if type(value) is Lazy else value


class TraceList(list[int]):
    """A slot list noting the first read of each slot not yet written, and every write.

    Slots in ``lazy`` (time stamps, queue depths, packet length) read as :class:`Lazy`.
    """

    __slots__ = ("lazy", "reads", "rec", "written")

    def __init__(self, f: list[int], lazy: frozenset[int], rec: Recorder) -> None:
        super().__init__(f)
        self.reads: dict[int, int] = {}
        self.written: set[int] = set()
        self.lazy, self.rec = lazy, rec

    def __getitem__(self, i: Any) -> Any:
        value = list.__getitem__(self, i)
        if isinstance(i, slice):
            for j, v in zip(range(*i.indices(len(self))), value):
                if j not in self.written:
                    self.reads.setdefault(j, unkeyed(v))
            return [plain(v) for v in value]
        i %= len(self)
        if i not in self.written:
            if i in self.lazy:
                return Lazy(value, ("slot", i), value, (), self.rec)
            self.reads.setdefault(i, value)
        return value

    def __setitem__(self, i: Any, value: Any) -> None:
        list.__setitem__(self, i, value)
        if isinstance(i, slice):
            self.written.update(range(*i.indices(len(self))))
        else:
            self.written.add(i % len(self))


class PktProxy:
    """Stands for the packet context while recording: writes are noted, reads spoil."""

    __slots__ = ("_p", "_rec", "_t")

    def __init__(self, p: Any, t: TraceList, rec: Recorder) -> None:
        object.__setattr__(self, "_p", p)
        object.__setattr__(self, "_t", t)
        object.__setattr__(self, "_rec", rec)

    def __getattr__(self, name: str) -> Any:
        self._rec.uncacheable = True
        return self._t if name == "f" else getattr(self._p, name)

    def __setattr__(self, name: str, value: Any) -> None:
        value = plain(value)
        self._rec.pwrites[name] = value
        setattr(self._p, name, value)


class Outcome:
    """A recorded run: final values of the slots it wrote, packet requests, side effects.

    Lazy values (:class:`Sym`) are numbered; a replay computes each once from the
    replayed packet's inputs before changing anything.
    """

    __slots__ = ("effects", "effects_k", "pwrites", "specs", "sym_writes", "syms", "writes")

    def __init__(self, t: TraceList, rec: Recorder) -> None:
        self.syms: list[Callable[[list[int]], int]] = []
        self.specs: list[Any] = []  # (probe, ops) of each of syms
        specs: dict[Any, int] = {}
        writes = [(s, _replayable(list.__getitem__(t, s))) for s in sorted(t.written)]
        self.writes = tuple((s, v) for s, v in writes if type(v) is not Sym)
        self.sym_writes = tuple((s, self._number(v, specs)) for s, v in writes if type(v) is Sym)
        self.pwrites = tuple(rec.pwrites.items())
        self.effects = tuple(rec.effects)
        self.effects_k = tuple(
            (fn, a, self._number(a, specs), b, self._number(b, specs)) for fn, a, b in rec.effects
        )

    def _number(self, v: Any, specs: dict[Any, int]) -> int:
        """-1 for a plain value, k for a lazy one (computed by ``syms[k]``)."""
        if type(v) is not Sym:
            return -1
        k = specs.get(v.spec)
        if k is None:
            k = specs[v.spec] = len(self.syms)
            self.syms.append(v.value)
            self.specs.append(v.spec)
        return k

    def replay(self, f: list[int], p: Any) -> None:
        """Bring ``f``/``p`` to the state the recorded run left them in, with its effects."""
        if self.syms:
            vals = [get(f) for get in self.syms]
            for s, v in self.writes:
                f[s] = v
            for s, k in self.sym_writes:
                f[s] = vals[k]
            for fn, a, ka, b, kb in self.effects_k:
                fn(a if ka < 0 else vals[ka], b if kb < 0 else vals[kb])
        else:
            for s, v in self.writes:
                f[s] = v
            for fn, a, b in self.effects:
                fn(a, b)
        for name, v in self.pwrites:
            setattr(p, name, v)


def _follow(node: Any, f: list[int], p: Any) -> None:
    while node is not None:
        node = node(f, p)


class Node:
    """Slots to look at next, as OVS subtables: (getter, {values: child}) per slot set.

    A child is an :class:`Outcome` (the run ended) or a :class:`Branch` (the run then
    looked at a lazy input; the next node depends on what it saw).
    """

    __slots__ = ("by_slots", "subtables")

    def __init__(self) -> None:
        self.subtables: list[tuple[Callable[[Any], Any], dict[Any, Any]]] = []
        self.by_slots: dict[tuple[int, ...], dict[Any, Any]] = {}

    def subtable(self, slots: tuple[int, ...]) -> dict[Any, Any]:
        """The subtable keyed on ``slots`` (created empty if new)."""
        table = self.by_slots.get(slots)
        if table is None:
            table = self.by_slots[slots] = {}
            self.subtables.append((_getter(slots), table))
        return table


class Branch:
    """The run looked at a lazy input ``spec`` = (probe, ops, comparison); children by key."""

    __slots__ = ("children", "fn", "spec")

    def __init__(self, spec: tuple[Any, ...]) -> None:
        probe, ops, cmp = spec
        self.spec = spec
        #: the key of ``f``'s input: ``key_function(ops, cmp)(probe_reader(probe)(f))``
        self.fn = branch_function(probe, ops, cmp)
        #: Node here; in framereplay a KeyNode, or what follows directly (framekeys.store)
        self.children: dict[Any, Any] = {}


class FlowCache:
    """The decision cache of one pipeline (ingress or egress) of one switch."""

    def __init__(self, start: Any, rec: Recorder, lazy: frozenset[int] = frozenset()) -> None:
        self.start, self.rec, self.lazy = start, rec, lazy
        self.root = Node()
        self.size = 0
        self.hits = self.misses = self.uncacheable = self.bypassed = 0
        self._window = (0, 0)  # (hits, misses) when the current window started
        self._bypass = 0  # runs left to run uncached (the cache missed too often)

    def flush(self) -> None:
        """Forget every outcome (the control plane changed something)."""
        self.root, self.size = Node(), 0

    def run(self, f: list[int], p: Any) -> None:
        """Replay a cached outcome for this packet, or run the pipeline and record it."""
        if self._bypass:
            self._bypass -= 1
            self.bypassed += 1
            _follow(self.start, f, p)
            return
        node: Node | None = self.root
        while node is not None:
            for getter, table in node.subtables:
                child = table.get(getter(f))
                if child is not None:
                    break
            else:
                break
            if type(child) is Outcome:
                self.hits += 1
                child.replay(f, p)
                return
            node = child.children.get(child.fn(f))
        self.misses += 1
        self._record(f, p)
        self._adapt()

    def _adapt(self) -> None:
        """After WINDOW runs with more than MAX_MISS_RATE misses, run BYPASS runs uncached:
        recording costs many plain runs (a hit saves ~40 % of one), so a cache that
        misses often would slow the switch down."""
        hits0, misses0 = self._window
        if self.hits + self.misses - hits0 - misses0 < WINDOW:
            return
        runs = self.hits + self.misses - hits0 - misses0
        warm_up = hits0 + misses0 == 0  # the first window fills the cache: not judged
        if not warm_up and self.misses - misses0 > MAX_MISS_RATE * runs:
            self._bypass = BYPASS
        self._window = (self.hits, self.misses)

    def _record(self, f: list[int], p: Any) -> None:
        t, out = traced_run(self.start, f, p, self.rec, self.lazy)
        if out is None:
            self.uncacheable += 1
        else:
            self._store(t, out)

    def _store(self, t: TraceList, out: Outcome) -> None:
        """File ``out`` under the slots read between lazy looks, and what those saw."""
        if self.size >= MAX_ENTRIES:
            self.flush()
        reads = list(t.reads.items())
        node, done = self.root, 0
        for upto, spec, value in self.rec.cuts:
            slots, key = _batch(reads[done:upto])
            table = node.subtable(slots)
            branch = table.get(key)
            if type(branch) is not Branch or branch.spec != spec:
                branch = table[key] = Branch(spec)
            node = branch.children.setdefault(value, Node())
            done = upto
        slots, key = _batch(reads[done:])
        node.subtable(slots)[key] = out
        self.size += 1
        if self.size & 63 == 0:  # most-used root subtables first
            self.root.subtables.sort(key=lambda st: -len(st[1]))


def traced_run(
    start: Any, f: list[int], p: Any, rec: Recorder, lazy: frozenset[int]
) -> tuple[TraceList, Outcome | None]:
    """Run a pipeline from ``start`` on ``f`` while ``rec`` records: the trace, and the
    outcome unless the run was uncacheable. ``f`` ends as an unrecorded run leaves it."""
    t = TraceList(f, lazy, rec)
    rec.start(t)
    try:
        _follow(start, t, PktProxy(p, t, rec))
        out = None if rec.uncacheable else Outcome(t, rec)
    except BaseException:
        rec.uncacheable = True
        raise
    finally:
        rec.active = False
        rec.watchers.remove()
        for s in t.written:
            f[s] = unkeyed(list.__getitem__(t, s))
    return t, out


def _batch(reads: list[tuple[int, int]]) -> tuple[tuple[int, ...], Any]:
    """(sorted slots, key as their getter returns it) of some (slot, value) reads."""
    pairs = sorted(reads)
    slots = tuple(s for s, _ in pairs)
    if len(slots) == 1:
        return slots, pairs[0][1]
    return slots, tuple(v for _, v in pairs)


def _getter(slots: tuple[int, ...]) -> Callable[[Any], Any]:
    if not slots:
        return lambda _f: ()
    return itemgetter(*slots)


class PipelineCaches:
    """The ingress and egress caches of one compiled program, sharing one recorder."""

    def __init__(self, program: Any) -> None:
        self.rec = Recorder()
        watch(program, self.rec)
        std = program.layout.std
        lazy = frozenset(std[k] for k in LAZY_FIELDS)
        self.ingress = FlowCache(program.ingress, self.rec, lazy)
        self.egress = FlowCache(program.egress, self.rec, lazy)
        for table in program.tables.values():
            table.changed = self.flush
        for prof in program.profiles.values():
            prof.changed = self.flush

    def flush(self) -> None:
        """Empty both caches."""
        self.ingress.flush()
        self.egress.flush()

    def stats(self) -> dict[str, int]:
        """Hits, misses and uncacheable runs of both pipelines."""
        return {
            f"{name}_{k}": getattr(c, k)
            for name, c in (("ingress", self.ingress), ("egress", self.egress))
            for k in ("hits", "misses", "uncacheable", "bypassed", "size")
        }
