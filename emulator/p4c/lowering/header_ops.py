"""Equality of whole headers, header stacks and structs: ``a == b`` and ``a != b``.

P4-16 (8.17): two headers are equal when both are invalid, or both are valid and every
field is equal; two structs when every field is (headers among them as above). Lowered to
one BMv2 boolean expression over the validity bits and fields.
"""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import wrap
from emulator.p4c.frontend.values import (
    RV,
    Const,
    HeaderRef,
    Json,
    ListV,
    StackRef,
    StructRef,
    Value,
    expr_json,
    hexv,
    to_data,
)


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


def struct_equality(a: StructRef, b: StructRef | ListV, op: str, pos: Pos) -> RV:
    """``a == b`` (or ``!=``) between two structs, or a struct and a ``{...}`` initializer."""
    every = _struct_equal(a, b, op, pos)
    result = every if every is not None else {"type": "bool", "value": True}
    return RV(result if op == "==" else expr_json("not", None, result), T.BOOL, boolean=True)


def _struct_equal(a: StructRef, b: StructRef | ListV, op: str, pos: Pos) -> Json | None:
    names = [n for n, _ in a.type.fields]
    if isinstance(b, StructRef):
        if b.type != a.type:
            raise CompileError(pos, f"type mismatch in '{op}': {a.type.show()} and {b.type.show()}")
        others = [b.fields[n] for n in names]
    else:
        if len(b.items) != len(names) or (b.names is not None and sorted(b.names) != sorted(names)):
            raise CompileError(pos, f"'{op}': the initializer does not match {a.type.show()}")
        others = [b.items[b.names.index(n)] for n in names] if b.names else list(b.items)
    every: Json | None = None
    for n, y in zip(names, others, strict=True):
        eq = _equal(a.fields[n], y, op, pos)
        if eq is not None:
            every = eq if every is None else expr_json("and", every, eq)
    return every


def stack_equality(a: StackRef, b: StackRef, op: str, pos: Pos) -> RV:
    """``a == b`` (or ``!=``) between two header stacks: every element equal, in order."""
    if a.type != b.type:
        raise CompileError(pos, f"type mismatch in '{op}': {a.type.show()} and {b.type.show()}")
    every: Json | None = None
    for x, y in zip(a.elems, b.elems, strict=True):
        eq = header_equality(x, y, "==", pos).json
        every = eq if every is None else expr_json("and", every, eq)
    result = every if every is not None else {"type": "bool", "value": True}
    return RV(result if op == "==" else expr_json("not", None, result), T.BOOL, boolean=True)


def _equal(x: Value, y: Value, op: str, pos: Pos) -> Json | None:
    if isinstance(x, HeaderRef) and isinstance(y, HeaderRef):
        return header_equality(x, y, "==", pos).json
    if isinstance(x, StackRef) and isinstance(y, StackRef):
        return stack_equality(x, y, "==", pos).json
    if isinstance(x, StructRef) and isinstance(y, StructRef | ListV):
        return _struct_equal(x, y, op, pos)
    if isinstance(x, RV | Const) and isinstance(y, RV | Const):
        if isinstance(y, Const) and isinstance(y.type, T.InfInt) and isinstance(x.type, T.Bits):
            y = Const(wrap(y.value, x.type), x.type)
        if x.type != y.type:
            raise CompileError(pos, f"type mismatch in '{op}': {x.type.show()} and {y.type.show()}")
        return expr_json("==", to_data(x), to_data(y))
    raise CompileError(pos, f"cannot compare {x.type.show()} and {y.type.show()} with '{op}'")


def aggregate_equality(a: Value, b: Value, op: str, pos: Pos) -> RV | None:
    """``a == b`` / ``a != b`` between headers, header stacks or structs; None for anything
    else."""
    if isinstance(a, HeaderRef) and isinstance(b, HeaderRef):
        return header_equality(a, b, op, pos)
    if isinstance(a, StackRef) and isinstance(b, StackRef):
        return stack_equality(a, b, op, pos)
    if isinstance(a, StructRef) and isinstance(b, StructRef | ListV):
        return struct_equality(a, b, op, pos)
    if isinstance(a, ListV) and isinstance(b, StructRef):
        return struct_equality(b, a, op, pos)
    return None
