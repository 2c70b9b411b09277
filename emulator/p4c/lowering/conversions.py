"""Implicit conversions between operand types: untyped constants to a width, and a
serializable enum (``enum bit<8> E { ... }``) to its underlying ``bit<8>``.

P4-16 lets a serializable enum's value convert implicitly to its underlying type, so
``E.C + h.x`` and ``h.y = E.C`` type-check as on ``bit<8>`` (p4c accepts both); the other
way, bits to an enum, needs a cast.
"""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import wrap
from emulator.p4c.frontend.values import RV, Const, Value


def serializable(t: T.Type) -> bool:
    """Whether ``t`` is an enum with an underlying type."""
    return isinstance(t, T.EnumT) and t.underlying is not None


def as_underlying(v: RV | Const) -> RV | Const:
    """``v`` as its underlying ``bit<W>`` if it is a serializable enum value, else as is."""
    t = v.type
    if not (isinstance(t, T.EnumT) and t.underlying is not None):
        return v
    if isinstance(v, Const):
        return Const(v.value, t.underlying)
    return RV(v.json, t.underlying, v.boolean, v.lvalue)


def coerce(v: Value, t: T.Type, pos: Pos, what: str = "value") -> Value:
    """Implicit conversion of ``v`` to type ``t`` (untyped ints only), else a type error."""
    vt = v.type
    if vt == t or (isinstance(vt, T.EnumT) and vt is t):
        return v
    if serializable(vt) and isinstance(v, RV | Const) and not isinstance(t, T.EnumT):
        return coerce(as_underlying(v), t, pos, what)
    if isinstance(v, Const) and isinstance(vt, T.InfInt):
        if isinstance(t, T.Bits):
            return Const(wrap(v.value, t), t)
        if isinstance(t, T.InfInt):
            return v
    if isinstance(t, T.DontCareT):
        return v
    if isinstance(vt, T.Bits) and isinstance(t, T.Bits):
        raise CompileError(
            pos, f"width mismatch: {what} of type {vt.show()} used where {t.show()} is expected"
        )
    raise CompileError(
        pos, f"type mismatch: {what} of type {vt.show()} used where {t.show()} is expected"
    )


def unify(a: RV | Const, b: RV | Const, pos: Pos, op: str) -> tuple[RV | Const, RV | Const, T.Type]:
    ta, tb = a.type, b.type
    if (
        isinstance(ta, T.InfInt)
        and isinstance(b, RV | Const)
        and isinstance(tb, T.Bits)
        and isinstance(a, Const)
    ):
        a = Const(wrap(a.value, tb), tb)
        return a, b, tb
    if isinstance(tb, T.InfInt) and isinstance(ta, T.Bits) and isinstance(b, Const):
        return a, Const(wrap(b.value, ta), ta), ta
    if ta == tb or (isinstance(ta, T.EnumT) and ta is tb):
        return a, b, ta
    if (serializable(ta) or serializable(tb)) and not (serializable(ta) and serializable(tb)):
        return unify(as_underlying(a), as_underlying(b), pos, op)  # enum E : bit<W> with bits
    if isinstance(ta, T.Bits) and isinstance(tb, T.Bits):
        raise CompileError(pos, f"width mismatch in '{op}': {ta.show()} and {tb.show()}")
    raise CompileError(pos, f"type mismatch in '{op}': {ta.show()} and {tb.show()}")
