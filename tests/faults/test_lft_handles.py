"""The LFT commands of an IB re-sweep name entries by the handles the switch gave them:
a LID deleted then another added reuses the freed index one version up, as BMv2 does
(checked against the built-in target's table, which tests/target checks against
simple_switch)."""

from __future__ import annotations

from emulator.faults.ib_resweep import LftEntries, lft_diff
from emulator.target.tables import ActionSpec, KeyField, Table


def _table() -> Table:
    fwd = ActionSpec("forward", 1, [("port", 9)], lambda *a: None)
    return Table(
        "lft", [KeyField("lid", "exact", 16)], lambda f: (f[0],), {"forward": fwd}, None, 0
    )


def _apply(table: Table, lines: list[str]) -> None:
    fwd = table.actions["forward"]
    for line in lines:
        words = line.split()
        if words[0] == "table_add":
            table.add([int(words[3])], fwd, (int(words[5]),))
        elif words[0] == "table_modify":
            table.modify(int(words[3]), fwd, (int(words[5]),))
        else:
            table.delete(int(words[2]))


def test_handles_follow_the_switch_through_deletes_and_adds() -> None:
    entries, table = LftEntries(), _table()
    steps = [
        {1: 1, 2: 2, 3: 3},  # the run's initial table_add lines (from nothing)
        {1: 1, 3: 3},  # LID 2's route gone: its entry deleted
        {1: 1, 3: 3, 4: 2},  # LID 4 added: index 1 again, version 1
        {1: 2, 3: 3, 4: 3},  # both modified by handle
        {1: 2, 3: 3},  # LID 4 deleted by its versioned handle
        {1: 2, 3: 3, 5: 1, 6: 1},
    ]
    old: dict[int, int] = {}
    for new in steps:
        _apply(table, lft_diff(old, new, entries))
        old = new
        assert {e.match[0]: e.handle for e in table.entries.values()} == entries.handles
        assert {e.match[0]: e.data[0] for e in table.entries.values()} == new
    assert entries.handles[5] == 1 | 2 << 24 and entries.handles[6] == 3
