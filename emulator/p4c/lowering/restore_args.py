"""Arguments a callee never names: copy-in/copy-out of ``inout`` ones, invalid ``out`` headers.

fabemu binds no copy to an ``inout`` parameter the body never mentions (p4c's optimiser
drops the copies of such a parameter, and reading the argument could be a stack index past
the end). But when the body writes the argument by another path (``h(hdr.f)`` and a called
action assigns ``hdr.f``, or ``h(hdr.f, hdr.f)`` where the second parameter is written),
the copy-out P4 prescribes puts the value from the call back, in parameter order;
p4c keeps those copies, and so does this. The copy-in is placed before the body once the
body's primitives show the write::

    body:      [start .......... body_end)        copy-outs
    after:     [start] tmp = arg, body ..., then   arg = tmp  (in parameter order)

An ``out`` parameter starts uninitialised, a header in it invalid, and is copied back: so
an ``out`` header argument the callee never names, or never makes valid, ends invalid
(``invalidate_out``; p4c gives every ``out`` parameter a fresh copy).
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend import values as V
from emulator.p4c.frontend.values import RV, HeaderRef, Value, hexv, to_data
from emulator.p4c.lowering.context import Ctx

#: (position in the copy-out list, the argument, its type, where the call is)
Pending = tuple[int, RV, T.Type, Pos]
#: a copy-out: (argument, the parameter's storage or None to invalidate it, position)
Copy = tuple[Value, Value | None, Pos]
_JUMP_PARAM = {"_jump": 0, "_jump_if_zero": 1}


def restorable(direction: str, used: bool, v: Value) -> bool:
    """Whether a parameter's argument needs the check: an unnamed ``inout`` field or variable
    (not a slice: its write-back is a merge of its own)."""
    return (
        direction == "inout" and not used and isinstance(v, RV) and v.lvalue and v.slice_of is None
    )


def _written(prims: list[dict[str, Any]], target: Any) -> bool:
    return any(p["op"] not in _JUMP_PARAM and p["parameters"][:1] == [target] for p in prims)


def _insert(prims: list[dict[str, Any]], at: int, prim: dict[str, Any]) -> None:
    """Insert ``prim`` at ``at``; jumps past it move with the primitives they point at."""
    prims.insert(at, prim)
    for p in prims[at + 1 :]:
        i = _JUMP_PARAM.get(p["op"])
        if i is not None and int(p["parameters"][i]["value"], 16) > at:
            p["parameters"][i] = hexv(int(p["parameters"][i]["value"], 16) + 1)


def restore_written(
    ctx: Ctx,
    pending: list[Pending],
    copies: list[Copy],
    start: int,
    body_end: int,
) -> int:
    """For each pending argument the body ``prims[start:body_end]`` writes, or another
    parameter's copy-out writes back to: a copy-in at ``start`` and a copy-out in its
    parameter's place in ``copies``. The new body end."""
    for index, arg, t, pos in reversed(pending):  # reversed: earlier list positions hold
        aliased = any(isinstance(c, RV) and c.json == arg.json for c, _, _ in copies)
        if not (aliased or _written(ctx.prims[start:body_end], arg.json)):
            continue
        tmp = ctx.temp(t, pos, "arg")
        ctx.emit("assign", [tmp.json, to_data(arg)], pos)
        _insert(ctx.prims, start, ctx.prims.pop())
        body_end += 1
        copies.insert(index, (arg, tmp, pos))
    return body_end


def invalidate_out(ctx: Ctx, v: Value, pos: Pos) -> None:
    """An ``out`` parameter's headers start invalid (P4 leaves other fields undefined)."""
    if isinstance(v, HeaderRef) and v.dyn is None:
        ctx.emit("remove_header", [v.json()], pos)
    elif isinstance(v, V.StackRef):
        for e in v.elems:
            invalidate_out(ctx, e, pos)
    elif isinstance(v, V.StructRef):
        for f in v.fields.values():
            invalidate_out(ctx, f, pos)
    elif isinstance(v, V.UnionRef):
        for m in v.members.values():
            invalidate_out(ctx, m, pos)
