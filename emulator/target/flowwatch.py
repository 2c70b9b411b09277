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


def watch(program: Any, rec: Recorder) -> None:
    """Make the program's externs and tables report to ``rec`` while it records."""
    for reg in program.registers.values():
        read, write = reg.read, reg.write

        def w_read(index: int, _read: Any = read) -> Any:
            return rec.register(_read, plain(index))

        def w_write(index: int, value: Any, _write: Any = write) -> None:
            index = plain(index)
            _write(index, unkeyed(value))
            if rec.active:
                rec.reg_write(_write, index, value)

        setattr(reg, "read", w_read)  # noqa: B010 - shadows the method on this instance
        setattr(reg, "write", w_write)  # noqa: B010
    for ctr in program.counters.values():
        count = ctr.count

        def w_count(index: int, length: Any, _count: Any = count) -> None:
            index = plain(index)
            _count(index, unkeyed(length))
            rec.effect(_count, index, length)

        setattr(ctr, "count", w_count)  # noqa: B010
    for mtr in program.meters.values():
        execute = mtr.execute

        def w_execute(index: int, length: int, _execute: Any = execute) -> int:
            rec.spoil()
            return int(_execute(plain(index), plain(length)))

        setattr(mtr, "execute", w_execute)  # noqa: B010
    _watch_rng(program.rng, rec)
    for table in program.tables.values():
        table.observer = lambda kind, t, e, n: _observe(rec, kind, t, e, n)


def _watch_rng(rng: random.Random, rec: Recorder) -> None:
    for name in _RNG_METHODS:
        orig = getattr(rng, name)

        def wrapped(*args: Any, _orig: Any = orig) -> Any:
            rec.spoil()
            return _orig(*args)

        setattr(rng, name, wrapped)


def _observe(rec: Recorder, kind: str, table: Table, e: Entry | None, nbytes: int) -> None:
    if kind == "count" and e is not None:
        rec.effect(_direct_count, e, nbytes)
    elif kind == "empty_group":
        rec.effect(_empty_group, table, None)
    else:  # a direct meter: depends on time and on its own state
        rec.spoil()
