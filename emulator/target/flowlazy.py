"""Lazy values for the decision cache: inputs a pipeline run carries but barely looks at.

A run that copies ``ingress_global_timestamp`` into metadata, counts ``packet_length``
bytes, stores a queue depth in a register or only compares a register cell with a
threshold would, keyed on those full values, almost never repeat. While a run is
recorded such inputs (time stamps, queue depths, packet length, register cells) read as a
:class:`Lazy` int that remembers where it came from (its *probe*) and the operations
applied to it:

* masking, adding, subtracting or shifting by a constant keeps it lazy;
* storing it (in a slot, a register cell, a counter's byte count) is replayed from the
  replayed packet's own input (``Sym``), not as a constant;
* comparing it with a constant keys the outcome on the comparison's result only;
* any other use (hashing, table keys, indexing, arithmetic with another variable) keys
  the outcome on its full value.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Protocol

Probe = tuple[Any, ...]  # ("slot", index) or ("reg", bound read, cell index)
Ops = tuple[tuple[str, int], ...]

OPS: dict[str, Callable[[int, int], int]] = {
    "and": operator.and_,
    "add": operator.add,
    "sub": operator.sub,
    "rsub": lambda a, c: c - a,
    "shr": operator.rshift,
    "shl": operator.lshift,
}
_CMPS: dict[str, Callable[[int, int], bool]] = {
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
}
_DERIVE = {
    "__and__": "and",
    "__rand__": "and",
    "__add__": "add",
    "__radd__": "add",
    "__sub__": "sub",
    "__rsub__": "rsub",
    "__rshift__": "shr",
    "__lshift__": "shl",
}


class Brancher(Protocol):
    """Where a lazy value reports that the run looked at it (the recorder)."""

    def branch(self, probe: Probe, ops: Ops, cmp: tuple[str, int] | None, value: Any) -> None:
        """The run's path depends on ``key(probe)``; here it was ``value``."""

    def sym(self, probe: Probe, ops: Ops) -> Sym:
        """The (shared) :class:`Sym` recomputing ``ops`` applied to ``probe``."""


def evaluate(ops: Ops, raw: int) -> int:
    """``raw`` with ``ops`` applied in order."""
    for code, c in ops:
        raw = OPS[code](raw, c)
    return raw


def simplify(ops: Ops) -> Ops:
    """``ops`` with runs of masks merged (``x & a & b == x & (a & b)``): same values."""
    out: list[tuple[str, int]] = []
    for code, c in ops:
        if code == "and" and out and out[-1][0] == "and":
            out[-1] = ("and", out[-1][1] & c)
        else:
            out.append((code, c))
    return tuple(out)


def compose(ops: Ops) -> Callable[[int], int]:
    """``evaluate`` specialised to ``ops`` (no ops, one, two, or a loop over the rest)."""
    steps = [(OPS[code], c) for code, c in simplify(ops)]
    if not steps:
        return lambda raw: raw
    if len(steps) == 1:
        fn, c = steps[0]
        return lambda raw: fn(raw, c)
    if len(steps) == 2:
        (f1, c1), (f2, c2) = steps
        return lambda raw: f2(f1(raw, c1), c2)

    def chain(raw: int) -> int:
        for fn, c in steps:
            raw = fn(raw, c)
        return raw

    return chain


def probe_reader(probe: Probe) -> Callable[[list[int]], int]:
    """A function reading the probe's current raw value (from ``f`` or its register)."""
    if probe[0] == "slot":
        return operator.itemgetter(probe[1])
    read, index = probe[1], probe[2]
    return lambda _f: read(index)  # type: ignore[no-any-return]


def key_function(ops: Ops, cmp: tuple[str, int] | None) -> Callable[[int], Any]:
    """What a branch keys on, from the raw probe value: the value or a comparison."""
    value = compose(ops)
    if cmp is None:
        return value
    test, c = _CMPS[cmp[0]], cmp[1]
    if not ops:
        return lambda raw: test(raw, c)
    return lambda raw: test(value(raw), c)


def branch_function(
    probe: Probe, ops: Ops, cmp: tuple[str, int] | None
) -> Callable[[list[int]], Any]:
    """``key_function(ops, cmp)(probe_reader(probe)(f))`` in one call where it can be: a
    slot or an in-range register cell read in place, at most one op, a comparison."""
    steps = simplify(ops)
    if len(steps) > 1 or cmp is None:
        read, key = probe_reader(probe), key_function(ops, cmp)
        return lambda f: key(read(f))
    test, c = _CMPS[cmp[0]], cmp[1]
    if probe[0] == "slot":
        cells, i = None, probe[1]
    else:
        reg, i = getattr(probe[1], "__self__", None), probe[2]
        cells = getattr(reg, "values", None)
        if type(cells) is not list or not 0 <= i < len(cells):
            read, key = probe_reader(probe), key_function(ops, cmp)
            return lambda f: key(read(f))
    if not steps:
        if cells is None:
            return lambda f: test(f[i], c)
        return lambda _f: test(cells[i], c)
    fn, k = OPS[steps[0][0]], steps[0][1]
    if cells is None:
        return lambda f: test(fn(f[i], k), c)
    return lambda _f: test(fn(cells[i], k), c)


class Sym:
    """A value to compute at replay from the replayed packet's own input."""

    __slots__ = ("spec", "value")

    def __init__(self, probe: Probe, ops: Ops) -> None:
        self.spec = (probe, ops)
        read = probe_reader(probe)
        if not ops:
            self.value: Callable[[list[int]], int] = read
        elif len(ops) == 1 and probe[0] == "slot" and ops[0][0] == "and":
            slot, mask = probe[1], ops[0][1]
            self.value = lambda f: f[slot] & mask  # type: ignore[no-any-return]
        else:
            fn = compose(ops)
            self.value = lambda f: fn(read(f))


class Lazy(int):
    """An int read from ``probe`` (raw value ``raw``) with ``ops`` applied."""

    probe: Probe
    raw: int
    ops: Ops
    rec: Brancher

    def __new__(cls, value: int, probe: Probe, raw: int, ops: Ops, rec: Brancher) -> Lazy:
        obj = int.__new__(cls, value)
        obj.probe, obj.raw, obj.ops, obj.rec = probe, raw, ops, rec
        return obj

    def keyed(self) -> int:
        """Key the run on this full value; return it as a plain int."""
        value = int.__pos__(self)
        self.rec.branch(self.probe, self.ops, None, value)
        return value

    def sym(self) -> Sym:
        """How to recompute this value at replay."""
        return self.rec.sym(self.probe, self.ops)


def plain(value: Any) -> Any:
    """``value`` as a plain int if it is lazy (keying it), else unchanged."""
    return value.keyed() if type(value) is Lazy else value


def unkeyed(value: Any) -> Any:
    """``value`` as a plain int without keying it (for state a replay recomputes)."""
    return int.__pos__(value) if type(value) is Lazy else value


def _keying(name: str) -> Callable[..., Any]:
    op = getattr(int, name)

    def method(self: Lazy, *args: Any) -> Any:
        return op(self.keyed(), *[plain(a) for a in args])

    return method


def _deriving(name: str, code: str) -> Callable[..., Any]:
    def method(self: Lazy, other: Any) -> Any:
        if type(other) is not int:
            return getattr(int, name)(self.keyed(), plain(other))
        value = OPS[code](int.__pos__(self), other)
        return Lazy(value, self.probe, self.raw, (*self.ops, (code, other)), self.rec)

    return method


def _comparing(name: str) -> Callable[..., Any]:
    test = _CMPS[name]

    def method(self: Lazy, other: Any) -> Any:
        if type(other) is not int:
            return test(self.keyed(), plain(other))
        result = test(int.__pos__(self), other)
        self.rec.branch(self.probe, self.ops, (name, other), result)
        return result

    return method


for _name in [
    "__mul__",
    "__rmul__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__divmod__",
    "__rdivmod__",
    "__truediv__",
    "__rtruediv__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__rlshift__",
    "__rrshift__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__hash__",
    "__bool__",
    "__index__",
    "__int__",
    "__float__",
    "__round__",
    "__trunc__",
    "__floor__",
    "__ceil__",
    "__format__",
    "__repr__",
    "__str__",
    "to_bytes",
    "bit_length",
    "bit_count",
]:
    setattr(Lazy, _name, _keying(_name))
for _name, _code in _DERIVE.items():
    setattr(Lazy, _name, _deriving(_name, _code))
for _name in _CMPS:
    setattr(Lazy, _name, _comparing(_name))
