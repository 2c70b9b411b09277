"""Constant folding: P4 operator semantics on Python integers (wrap-around, saturation)."""

from __future__ import annotations

from emulator.p4c.diagnostics import MAX_WIDTH
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T


def wrap(value: int, t: T.Type) -> int:
    """Reduce ``value`` to the range of ``t`` (two's complement for signed types)."""
    if isinstance(t, T.Bits):
        m = (1 << t.width) - 1
        v = value & m
        if t.signed and v >> (t.width - 1):
            v -= 1 << t.width
        return v
    return value


def saturate(value: int, t: T.Bits) -> int:
    """Clamp ``value`` to the range of ``t``."""
    if t.signed:
        lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
    else:
        lo, hi = 0, (1 << t.width) - 1
    return max(lo, min(hi, value))


def fold_binary(op: str, a: int, b: int, t: T.Type) -> int | None:
    """Fold ``a op b`` in type ``t``; None when the operator does not fold (division by 0)."""
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            return None
        r = a // b if op == "/" else a % b
    elif op == "<<":
        if b > MAX_WIDTH and not (isinstance(t, T.Bits) and a == 0):
            if not isinstance(t, T.Bits):
                raise OverflowError(f"shift by {b} exceeds the limit of {MAX_WIDTH} bits")
            b = t.width  # every bit shifted out: the same result, without the huge number
        r = a << b
    elif op == ">>":
        r = a >> b
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "|+|":
        return saturate(a + b, t) if isinstance(t, T.Bits) else a + b
    elif op == "|-|":
        return saturate(a - b, t) if isinstance(t, T.Bits) else a - b
    else:
        return None
    return wrap(r, t)


def fold_compare(op: str, a: int, b: int) -> bool:
    """Fold a comparison."""
    return {
        "==": a == b,
        "!=": a != b,
        "<": a < b,
        "<=": a <= b,
        ">": a > b,
        ">=": a >= b,
    }[op]


def untyped_literal(e: A.Expr) -> bool:
    """Whether ``e`` is built only of integer literals without a width (``-5``, ``1 + 2``)."""
    if isinstance(e, A.IntLit):
        return e.width is None
    if isinstance(e, A.Unary):
        return e.op == "-" and untyped_literal(e.expr)
    if isinstance(e, A.Binary):
        return e.op in ("+", "-", "*", "<<", ">>") and all(
            untyped_literal(x) for x in (e.left, e.right)
        )
    return False
