"""Make a compiled program's externs and tables report to a decision-cache recorder.

Register reads become lazy values and writes replayable effects, counter updates and
direct-counter hits effects, meters and random numbers spoil the run being recorded
(:mod:`.flowcache`, :mod:`.framereplay`). Outside a recording everything behaves as before.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from emulator.target.flowlazy import plain, unkeyed
from emulator.target.tables import Entry, Table

if TYPE_CHECKING:
    from emulator.target.flowcache import Recorder

_RNG_METHODS = ("random", "getrandbits", "randint", "randrange", "uniform", "choice")


def _direct_count(e: Entry, nbytes: int) -> None:
    e.packets += 1
    e.bytes += nbytes


def _empty_group(table: Table, _unused: Any) -> None:
    table.empty_group_misses += 1


_MISSING = object()


class Watchers:
    """Attributes to set on objects while a run is recorded, and to undo after."""

    def __init__(self) -> None:
        #: (object, attribute, watching value, value outside recordings or _MISSING)
        self.items: list[tuple[Any, str, Any, Any]] = []

    def add(self, obj: Any, name: str, value: Any) -> None:
        """Have ``obj.<name>`` be ``value`` while recording (its own attribute, if any,
        otherwise: the class's, again after)."""
        self.items.append((obj, name, value, vars(obj).get(name, _MISSING)))

    def install(self) -> None:
        """Put every watching value in place."""
        for obj, name, value, _ in self.items:
            setattr(obj, name, value)

    def remove(self) -> None:
        """Put back what was there before."""
        for obj, name, _, before in self.items:
            if before is _MISSING:
                vars(obj).pop(name, None)
            else:
                setattr(obj, name, before)


def watch(program: Any, rec: Recorder) -> None:
    """Make the program's externs and tables report to ``rec`` while it records (the
    recorder puts the watchers in place for the run: ``Recorder.start``)."""
    add = rec.watchers.add
    for reg in program.registers.values():
        read, write = reg.read, reg.write

        def w_read(index: int, old: Any = 0, _read: Any = read, _size: int = reg.size) -> Any:
            index = plain(index)
            return rec.register(_read, index) if 0 <= index < _size else old

        def w_write(index: int, value: Any, _write: Any = write) -> None:
            index = plain(index)
            _write(index, unkeyed(value))
            if rec.active:
                rec.reg_write(_write, index, value)

        add(reg, "read", w_read)  # shadows the method on this instance while recording
        add(reg, "write", w_write)
    for ctr in program.counters.values():
        count = ctr.count

        def w_count(index: int, length: Any, _count: Any = count) -> None:
            index = plain(index)
            _count(index, unkeyed(length))
            rec.effect(_count, index, length)

        add(ctr, "count", w_count)
    for mtr in program.meters.values():
        execute = mtr.execute

        def w_execute(index: int, length: int, _execute: Any = execute) -> int:
            rec.spoil()
            return int(_execute(plain(index), plain(length)))

        add(mtr, "execute", w_execute)
    _watch_rng(program.rng, rec)
    for table in program.tables.values():
        add(table, "observer", lambda kind, t, e, n: _observe(rec, kind, t, e, n))


def _watch_rng(rng: random.Random, rec: Recorder) -> None:
    for name in _RNG_METHODS:
        orig = getattr(rng, name)

        def wrapped(*args: Any, _orig: Any = orig) -> Any:
            rec.spoil()
            return _orig(*args)

        rec.watchers.add(rng, name, wrapped)


def _observe(rec: Recorder, kind: str, table: Table, e: Entry | None, nbytes: int) -> None:
    if kind == "count" and e is not None:
        rec.effect(_direct_count, e, nbytes)
    elif kind == "empty_group":
        rec.effect(_empty_group, table, None)
    else:  # a direct meter: depends on time and on its own state
        rec.spoil()
