"""Lowered values: what a P4 expression denotes once names are resolved.

A value is either a compile-time constant, a BMv2 JSON operand (field, runtime datum,
expression), or a reference to storage or an object (header, stack, struct, extern, table).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.p4c.frontend import types as T

Json = dict[str, Any]


def hexstr(value: int, width: int | None = None) -> str:
    """BMv2 hex string, zero-padded to whole bytes of ``width`` bits."""
    if value < 0:
        return "-" + hexstr(-value, width)
    nbytes = max(1, ((width or max(value.bit_length(), 1)) + 7) // 8)
    return f"0x{value:0{2 * nbytes}x}"


def hexv(value: int, width: int | None = None) -> Json:
    return {"type": "hexstr", "value": hexstr(value, width)}


def expr_json(op: str, left: Json | None, right: Json, **extra: Json) -> Json:
    """An expression object, nesting operands as BMv2 wants (runtime_data becomes local)."""
    v: dict[str, Any] = {
        "op": op,
        "left": operand(left) if left is not None else None,
        "right": operand(right),
    }
    for k, x in extra.items():
        v[k] = operand(x)
    return {"type": "expression", "value": v}


def operand(j: Json) -> Json:
    """Inside an expression, action parameters are ``local`` not ``runtime_data``."""
    if j.get("type") == "runtime_data":
        return {"type": "local", "value": j["value"]}
    return j


def primitive_arg(j: Json) -> Json:
    """A primitive argument: BMv2 reads an ``expression`` argument's value as a typed
    expression, so an operator node is wrapped once more (as p4c-bm2-ss emits it)."""
    if isinstance(j, dict) and j.get("type") == "expression" and "op" in j["value"]:
        return {"type": "expression", "value": j}
    return j


def as_expression(j: Json) -> Json:
    """Wrap a plain operand so it is of type ``expression`` (for contexts that demand it)."""
    if j.get("type") == "expression":
        return j
    return expr_json("&", j, hexv((1 << 64) - 1))


class Value:
    """Base of lowered values."""

    type: T.Type


@dataclass
class Const(Value):
    """A compile-time constant (int, bool, enum member, error)."""

    value: int
    type: T.Type

    def json(self) -> Json:
        if isinstance(self.type, T.BoolT):
            return {"type": "bool", "value": bool(self.value)}
        return hexv(self.value, T.width_of(self.type))


@dataclass
class RV(Value):
    """A runtime operand. ``boolean``: the JSON evaluates to a BMv2 bool (not data)."""

    json: Json
    type: T.Type
    boolean: bool = False
    lvalue: bool = False
    #: a slice of a field or variable, written back into it: (its JSON, low bit, its width)
    slice_of: tuple[Json, int, int] | None = None


@dataclass
class HeaderRef(Value):
    name: str
    type: T.StructT
    dyn: Json | None = None  # header selected at run time (stack[index])

    def json(self) -> Json:
        if self.dyn is not None:
            return self.dyn
        return {"type": "header", "value": self.name}


@dataclass
class StackRef(Value):
    name: str
    type: T.StackT
    elems: list[HeaderRef] = field(default_factory=list)


@dataclass
class UnionRef(Value):
    name: str
    type: T.StructT
    members: dict[str, HeaderRef] = field(default_factory=dict)


@dataclass
class UnionStackRef(Value):
    """A stack of header unions (``header_union_stacks``): constant indices only."""

    name: str
    type: T.StackT
    elems: list[UnionRef] = field(default_factory=list)


@dataclass
class StructRef(Value):
    """A struct held in storage: field name -> value."""

    type: T.StructT
    fields: dict[str, Value] = field(default_factory=dict)


@dataclass
class InvalidHeaderV(Value):
    """``(h_t){#}``: a header of type ``type`` that is not valid."""

    type: T.StructT


@dataclass
class ListV(Value):
    """``{a, b, c}`` list / tuple / struct-valued expression."""

    items: list[Value]
    type: T.Type = field(default_factory=lambda: T.TupleT(()))
    names: list[str] | None = None
    rest: bool = False  # `{ a = 1, ... }`: the fields not named take their defaults


@dataclass
class ObjRef(Value):
    """An object that is not data: extern instance, table, action, parser/control, type, ..."""

    kind: str  # 'extern' 'table' 'action' 'control' 'parser' 'type' 'func' 'packet_in' ...
    name: str
    decl: Any = None
    type: T.Type = T.VOID
    extra: Any = None


def to_bool(v: RV | Const) -> Json:
    """JSON for a bool-typed value in a bool context."""
    if isinstance(v, Const):
        return {"type": "bool", "value": bool(v.value)}
    if v.boolean:
        return v.json
    return expr_json("d2b", None, v.json)


def to_data(v: RV | Const) -> Json:
    """JSON for a value in a data context (bool expressions become 0/1)."""
    if isinstance(v, Const):
        if isinstance(v.type, T.BoolT):
            return hexv(1 if v.value else 0, 1)
        return v.json()
    if v.boolean:
        return expr_json("b2d", None, v.json)
    return v.json


def mask(width: int) -> int:
    return (1 << width) - 1
