"""Operations on whole headers in expressions: ``h1 == h2`` and ``h1 != h2``.

P4-16 (8.17): two headers are equal when both are invalid, or both are valid and every
field is equal. Lowered to one BMv2 boolean expression over the validity bits and fields.
"""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import RV, HeaderRef, Json, expr_json, hexv


def _field(h: HeaderRef, name: str) -> Json:
    return {"type": "field", "value": [h.name, name]}


def header_equality(a: HeaderRef, b: HeaderRef, op: str, pos: Pos) -> RV:
    """``a == b`` (or ``!=``) between two headers of the same type."""
    if a.type != b.type:
        raise CompileError(pos, f"type mismatch in '{op}': {a.type.show()} and {b.type.show()}")
    if a.dyn is not None or b.dyn is not None:
        raise CompileError(pos, f"'{op}' between header stack elements is not supported")
    same_validity = expr_json("==", _field(a, "$valid$"), _field(b, "$valid$"))
    result = same_validity
    if a.type.fields:
        every = None
        for name, _t in a.type.fields:
            eq = expr_json("==", _field(a, name), _field(b, name))
            every = eq if every is None else expr_json("and", every, eq)
        invalid = expr_json("==", _field(a, "$valid$"), hexv(0, 1))
        result = expr_json("and", same_validity, expr_json("or", invalid, every))  # type: ignore[arg-type]
    return RV(result if op == "==" else expr_json("not", None, result), T.BOOL, boolean=True)
