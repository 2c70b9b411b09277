"""``/`` and ``%`` of run-time values, as far as p4c-bm2-ss compiles them.

p4c-bm2-ss keeps no division or modulo for run time: after constant folding and strength
reduction (``x / 2^n`` is ``x >> n``, ``x % 2^n`` is ``x & (2^n - 1)``, ``0 / x`` and
``0 % x`` are 0) any ``/`` or ``%`` left is refused, "could not evaluate expression at
compilation time". fabemu refuses the same expressions at ``file:line:col``::

    hdr.h.a % 8     compiled (a constant power of 2, 1 included)
    hdr.h.a % 7     refused  (so is 7 % hdr.h.a, hdr.h.a % hdr.h.b)
    8w0 % hdr.h.a   compiled to 0 (so is 8w0 / hdr.h.a)
    hdr.h.a % 0     refused (modulo by zero; so is hdr.h.a % 256 of a bit<8>)
    17 % 5          folded before this is reached (both operands constant)

Values of local variables are seen first (``const_flow.Known``: ``bit<8> x = 10;
x % 7`` is 3, as on p4c); nothing is strength-reduced around the operator (``(a * 0) % 7``
is refused here, compiled by p4c).
"""

from __future__ import annotations

from emulator.p4c.diagnostics import BackendLimit, CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import fold_binary
from emulator.p4c.frontend.values import RV, Const, expr_json, to_data
from emulator.p4c.lowering.const_flow import Known


def div_mod(e: A.Binary, a: RV | Const, b: RV | Const, t: T.Bits, known: Known) -> RV | Const:
    """``a / b`` or ``a % b`` (``e.op``) of type ``t``, one operand at least not constant;
    ``known`` gives what an operand is when local variables have known values."""
    op = e.op
    if not isinstance(a, Const) and (ka := known.const(e.left, t)) is not None:
        a = ka
    if not isinstance(b, Const) and (kb := known.const(e.right, t)) is not None:
        b = kb
    if isinstance(a, Const) and isinstance(b, Const):
        return fold_consts(e, a, b, t)
    if t.signed:
        raise CompileError(e.pos, f"'{op}' is not supported on signed values")
    if isinstance(b, Const) and b.value == 0:
        what = "division" if op == "/" else "modulo"
        raise CompileError(e.pos, f"{what} by zero: the divisor is 0 as {t.show()}")
    if isinstance(a, Const) and a.value == 0:
        return Const(0, t)
    if not (isinstance(b, Const) and b.value & (b.value - 1) == 0):
        raise BackendLimit(
            e.pos,
            f"'{op}' could not be evaluated at compilation time: p4c-bm2-ss compiles '{op}' "
            "of a run-time value only by a constant power of 2",
        )
    return RV(expr_json(op, to_data(a), to_data(b)), t)


def fold_consts(e: A.Binary, a: Const, b: Const, t: T.Type) -> Const:
    """``a op b`` (``e.op``, any arithmetic operator) folded in type ``t``; as p4c, no
    ``/`` or ``%`` of a negative constant."""
    if e.op in ("/", "%") and (a.value < 0 or b.value < 0):
        what = "Division" if e.op == "/" else "Modulo"
        raise CompileError(
            e.pos, f"{a.value} {e.op} {b.value}: {what} is not defined for negative numbers"
        )
    r = fold_binary(e.op, a.value, b.value, t)
    if r is None:
        raise CompileError(e.pos, "division by zero")
    return Const(r, t)
