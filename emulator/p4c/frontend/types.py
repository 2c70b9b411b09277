"""Semantic P4 types used by the type checker and the lowering to BMv2 JSON."""

from __future__ import annotations

from dataclasses import dataclass, field


class Type:
    """Base of every semantic type."""

    def show(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Bits(Type):
    width: int
    signed: bool = False

    def show(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True)
class InfInt(Type):
    """An arbitrary-precision integer constant (``int``)."""

    def show(self) -> str:
        return "int"


@dataclass(frozen=True)
class BoolT(Type):
    def show(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Varbit(Type):
    max_width: int

    def show(self) -> str:
        return f"varbit<{self.max_width}>"


@dataclass(frozen=True)
class StringT(Type):
    def show(self) -> str:
        return "string"


@dataclass(frozen=True)
class ErrorT(Type):
    def show(self) -> str:
        return "error"


@dataclass(frozen=True)
class VoidT(Type):
    def show(self) -> str:
        return "void"


@dataclass(frozen=True)
class DontCareT(Type):
    def show(self) -> str:
        return "_"


@dataclass(frozen=True, eq=False)
class StructT(Type):
    """header, header_union or struct; ``fields`` in declaration order."""

    kind: str
    name: str
    fields: tuple[tuple[str, Type], ...]
    annotations: tuple = ()

    def show(self) -> str:
        return f"{self.kind} {self.name}"

    def field_type(self, name: str) -> Type | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None

    def bit_width(self) -> int:
        return sum(t.width if isinstance(t, Bits) else 0 for _, t in self.fields)

    def size_in_bits(self, largest: bool) -> int:
        """The header's size: its varbit fields empty, or (``largest``) at their maximum."""
        return sum(width_of(t) or 0 for _, t in self.fields if largest or not isinstance(t, Varbit))


@dataclass(frozen=True)
class StackT(Type):
    elem: Type
    size: int

    def show(self) -> str:
        return f"{self.elem.show()}[{self.size}]"


@dataclass(frozen=True, eq=False)
class EnumT(Type):
    name: str
    members: tuple[tuple[str, int], ...]
    underlying: Bits | None = None

    def show(self) -> str:
        return f"enum {self.name}"

    def value(self, member: str) -> int | None:
        for n, v in self.members:
            if n == member:
                return v
        return None


@dataclass(frozen=True)
class TupleT(Type):
    items: tuple[Type, ...]

    def show(self) -> str:
        return "tuple<" + ", ".join(t.show() for t in self.items) + ">"


@dataclass(frozen=True)
class NamedT(Type):
    """An extern/parser/control/package type by name (with type arguments)."""

    kind: str
    name: str
    args: tuple[Type, ...] = field(default=())

    def show(self) -> str:
        return self.name


BOOL = BoolT()
INFINT = InfInt()
ERROR = ErrorT()
VOID = VoidT()
STRING = StringT()


def width_of(t: Type) -> int | None:
    """Bit width of a scalar type (bool counts 1, error and plain enums 32)."""
    if isinstance(t, Bits):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, ErrorT):
        return 32
    if isinstance(t, EnumT):
        return t.underlying.width if t.underlying else 32
    if isinstance(t, Varbit):
        return t.max_width
    return None


#: header methods giving its size, as a compile-time constant
SIZE_METHODS = frozenset({"minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"})
