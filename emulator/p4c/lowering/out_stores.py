"""A local's store that an extern's ``out`` argument overwrites at once, dropped as p4c drops it.

p4c's dead-store elimination removes ``c = 7`` from ``bit<8> c = 7; m.execute_meter(i, c);``
since the meter writes ``c`` before anything reads it. BMv2's meter, like its
``register_read``, leaves ``c`` alone for an index past the array's end, so the dropped
store shows: the packet sees the local as it was before (0: locals are metadata, zeroed per
packet). Only a store in the same run of primitives, with no read of the local, no jump and
no jump target after it, is dropped.
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.lowering.context import Ctx

_JUMPS = {"_jump": 0, "_jump_if_zero": 1}


def _mentions(j: Any, target: Any) -> bool:
    if j == target:
        return True
    if isinstance(j, dict):
        return any(_mentions(v, target) for v in j.values())
    if isinstance(j, list):
        return any(_mentions(v, target) for v in j)
    return False


def drop_dead_store(ctx: Ctx, target: Any, reads: Any) -> None:
    """Before an extern call writes local ``target`` (field JSON) and reads ``reads`` (its
    other arguments' JSON): drop the last store to it when nothing since reads it."""
    if not (isinstance(target, dict) and target.get("value", [None])[0] == "scalars"):
        return
    if _mentions(reads, target):
        return
    prims = ctx.prims
    for i in range(len(prims) - 1, -1, -1):
        p = prims[i]
        if p["op"] in _JUMPS or p["op"] == "exit":
            return
        params = p["parameters"]
        if p["op"] == "assign" and params[0] == target and not _mentions(params[1], target):
            targets = [int(q["parameters"][k]["value"], 16) for q in prims
                       if (k := _JUMPS.get(q["op"])) is not None]  # fmt: skip
            if not any(i < t <= len(prims) for t in targets):
                del prims[i]
            return
        if _mentions(params, target):
            return
