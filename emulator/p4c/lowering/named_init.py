"""Struct and header initializers by field name, with ``...`` for the fields left out.

``{ b = 2, a = 1 }`` gives each named field its value, whatever the order; a name the type
lacks, a missing field without ``...``, or a repeated name is an error. ``{ a = 1, ... }``
(P4-16 1.2.2) leaves the other fields at their defaults, as p4c does: bit, int and enum
fields 0, ``bool`` false, headers and unions invalid, structs field by field.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, HeaderRef, ListV, StructRef, Value
from emulator.p4c.lowering.context import Ctx


def by_field(fields: list[str], v: ListV, what: str, pos: Pos) -> list[tuple[str, Value | None]]:
    """``(field, value)`` in declaration order; None: left to its default by ``...``."""
    if v.names is None:
        if len(v.items) != len(fields) or v.rest:
            raise CompileError(pos, f"{what} has {len(fields)} fields, got {len(v.items)} values")
        return list(zip(fields, v.items, strict=True))
    given = dict(zip(v.names, v.items, strict=True))
    if len(given) != len(v.names):
        raise CompileError(pos, f"a field of {what} is given twice")
    if unknown := [n for n in v.names if n not in fields]:
        raise CompileError(pos, f"{what} has no field '{unknown[0]}'")
    if not v.rest and (missing := [f for f in fields if f not in given]):
        raise CompileError(pos, f"{what}: no value for field '{missing[0]}' (add '...' to zero it)")
    return [(f, given.get(f)) for f in fields]


Assign = Callable[[Value, Value, Ctx, Pos], None]


def default_fill(target: Value, ctx: Ctx, pos: Pos, assign: Assign) -> None:
    """Give ``target`` (a field, header or struct reference) its default value, through
    ``assign`` (the statement lowering's assignment) for scalars."""
    if isinstance(target, HeaderRef):
        ctx.emit("remove_header", [target.json()], pos)
    elif isinstance(target, StructRef):
        for f in target.fields.values():
            default_fill(f, ctx, pos, assign)
    elif isinstance(target.type, T.Bits | T.BoolT | T.EnumT):
        assign(target, Const(0, target.type), ctx, pos)
    else:
        raise CompileError(pos, f"'...' cannot give a default to a {target.type.show()}")
