"""Shifts (``<<``, ``>>``) of lowered operands, and the wrap-around mask ``<<`` needs."""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import fold_binary
from emulator.p4c.frontend.values import RV, Const, expr_json, hexv, mask, to_data


def masked(j: dict[str, Any], t: T.Type) -> dict[str, Any]:
    """``j`` reduced to the width of ``t`` (two's complement for a signed type)."""
    if isinstance(t, T.Bits):
        if t.signed:
            return expr_json("two_comp_mod", j, hexv(t.width))
        return expr_json("&", j, hexv(mask(t.width), t.width))
    return j


def shift(e: A.Binary, a: RV | Const, b: RV | Const) -> RV | Const:
    """``a << b`` or ``a >> b`` (``e.op``), of ``a``'s type; folded when both are constant."""
    op, t = e.op, a.type
    if not isinstance(t, T.Bits | T.InfInt) or not isinstance(b.type, T.Bits | T.InfInt):
        raise CompileError(e.pos, f"'{op}' needs integer operands")
    if isinstance(b.type, T.Bits) and b.type.signed:
        raise CompileError(e.right.pos, "shift amount must be unsigned")
    if isinstance(b, Const) and b.value < 0:
        raise CompileError(e.right.pos, "shifts with negative amounts are not permitted")
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(fold_binary(op, a.value, b.value, t) or 0, t)
    if isinstance(t, T.InfInt):
        raise CompileError(
            e.pos,
            "width of left operand of shift needs to be specified (an untyped constant "
            "shifted by a run-time amount)",
        )
    if isinstance(a, Const) and a.value == 0:  # as p4c's strength reduction, before its
        return Const(0, t)  # back end sees the shift (the amount's side effects are kept)
    if isinstance(b, RV) and isinstance(b.type, T.Bits) and b.type.width > 8:
        raise CompileError(  # as p4c-bm2-ss
            e.pos, f"{A.expr_text(e)}: shift amount limited to 8 bits on this target"
        )
    j = expr_json(op, to_data(a), to_data(b))
    return RV(masked(j, t) if op == "<<" else j, t)
