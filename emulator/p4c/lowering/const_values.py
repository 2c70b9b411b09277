"""Compile-time values beyond one integer: ``int`` constants shifted in full precision,
constant structs and tuples.

``const int BIG = 1 << 64; (bit<16>)(BIG >> 60)`` is 16 in p4c, which shifts an ``int``
before the cast narrows it; ``const S CS = { a = 5, ... };`` and ``const tuple<bit<8>,
bit<8>> CT = { 1, 6 };`` are values whose fields and elements (``CS.a``, ``CT[1]``) are
constants of the declared field types.
"""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, ListV, Value
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.conversions import coerce
from emulator.p4c.lowering.named_init import by_field


def int_constant(e: A.Expr, ctx: Ctx) -> bool:
    """Whether ``e`` names a constant of type ``int`` (``const int BIG = 1 << 64``)."""
    if not isinstance(e, A.Name) or (ctx.subst is not None and not e.top):
        return False
    v = (ctx.env.globals if e.top else ctx.scope).lookup(e.name)
    return isinstance(v, Const) and isinstance(v.type, T.InfInt)


def const_aggregate(v: Value, t: T.Type, pos: Pos) -> Value:
    """``v`` (a ``{...}`` of constants) as a constant of struct or tuple type ``t``; other
    values as they are."""
    if not isinstance(v, ListV):
        return v
    if isinstance(t, T.StructT) and t.kind == "struct":
        names = [n for n, _ in t.fields]
        pairs = by_field(names, v, t.show(), pos)
        items = [_item(x, ft, pos) for (_, x), (_, ft) in zip(pairs, t.fields, strict=True)]
        return ListV(items, t, names)
    if isinstance(t, T.TupleT):
        if len(v.items) != len(t.items) or v.names is not None:
            raise CompileError(pos, f"{t.show()} needs {len(t.items)} values, got {len(v.items)}")
        return ListV([_item(x, et, pos) for x, et in zip(v.items, t.items, strict=True)], t)
    return v


def _item(x: Value | None, t: T.Type, pos: Pos) -> Value:
    if x is None:  # left out by `...`
        if isinstance(t, T.Bits | T.BoolT):
            return Const(0, t)
        raise CompileError(pos, f"'...' in a constant cannot give a default to a {t.show()}")
    if isinstance(x, ListV):
        return const_aggregate(x, t, pos)
    if not isinstance(x, Const):
        raise CompileError(pos, "a constant's fields must be compile-time constants")
    return coerce(x, t, pos)
