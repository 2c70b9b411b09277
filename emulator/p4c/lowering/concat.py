"""``a ++ b``: bit concatenation, as p4c-bm2-ss 1.2.4.8 compiles it.

The result has both widths and ``a``'s signedness (a signed result is two's complement, so
``(s ++ t) >> 4`` shifts arithmetically). p4c refuses operands of different signedness (it
casts ``b`` to the result type, a cast changing width and sign). When both operands are
constant it folds ``(a << wb) + b`` without cutting ``b`` to its width, so a negative ``b``
carries its sign bits up (``-8s40 ++ -8s128`` is 0xd780, not 0xd880); at run time ``b`` is
masked to its width.
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import wrap
from emulator.p4c.frontend.values import RV, Const, Value, expr_json, hexv, mask
from emulator.p4c.lowering.shifts import masked


def concat(e: A.Binary, a: RV | Const, b: RV | Const) -> Value:
    """``a ++ b`` (``e`` gives the positions)."""
    ta, tb = a.type, b.type
    if not isinstance(ta, T.Bits) or not isinstance(tb, T.Bits):
        raise CompileError(e.pos, "'++' needs operands of known width (bit<W> or int<W>)")
    tc = T.Bits(ta.width + tb.width, ta.signed)
    if ta.signed != tb.signed:
        raise CompileError(
            e.right.pos,
            f"'++' of {ta.show()} and {tb.show()}: cannot cast {tb.show()} to {tc.show()} "
            "(give both one signedness)",
        )
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(wrap((a.value << tb.width) + b.value, tc), tc)
    left = expr_json("<<", _unsigned(a), hexv(tb.width))
    return RV(masked(expr_json("|", left, _unsigned(b)), tc), tc)


def _unsigned(v: RV | Const) -> dict[str, Any]:
    """``v``'s bits as a non-negative number."""
    t = v.type
    assert isinstance(t, T.Bits)
    if isinstance(v, Const):
        return hexv(v.value & mask(t.width), t.width)
    if t.signed:
        return expr_json("&", v.json, hexv(mask(t.width), t.width))
    return v.json
