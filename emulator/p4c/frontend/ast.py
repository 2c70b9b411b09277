"""P4-16 abstract syntax tree: frozen dataclasses, each carrying its source position."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field

from emulator.p4c.diagnostics import Pos

Annotations = tuple[tuple[str, tuple[object, ...]], ...]


def anno(annos: Annotations, name: str) -> tuple[object, ...] | None:
    """The arguments of annotation ``@name``, or None when absent."""
    for n, args in annos:
        if n == name:
            return args
    return None


# ----------------------------------------------------------------------------- types
@dataclass(frozen=True)
class TypeRef:
    """A type as written: ``bit<8>``, ``int<4>``, ``varbit<32>``, ``bool``, a name, a stack."""

    pos: Pos
    kind: (
        str  # 'bit' 'int' 'varbit' 'bool' 'error' 'string' 'void' 'name' 'stack' 'tuple' 'dontcare'
    )
    name: str = ""
    width: Expr | None = None
    args: tuple[TypeRef, ...] = ()
    size: Expr | None = None  # for 'stack'


# ----------------------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Expr:
    pos: Pos


@dataclass(frozen=True)
class IntLit(Expr):
    value: int
    width: int | None = None
    signed: bool = False
    base: int = field(default=10, compare=False)  # as written: 16 for 0x.., 2 for 0b..


@dataclass(frozen=True)
class BoolLit(Expr):
    value: bool


@dataclass(frozen=True)
class StrLit(Expr):
    value: str


@dataclass(frozen=True)
class Name(Expr):
    name: str
    top: bool = False  # written as .name


@dataclass(frozen=True)
class Member(Expr):
    expr: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    expr: Expr
    index: Expr


@dataclass(frozen=True)
class Slice(Expr):
    expr: Expr
    hi: Expr
    lo: Expr


@dataclass(frozen=True)
class Call(Expr):
    func: Expr
    type_args: tuple[TypeRef, ...]
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class Arg:
    """A call argument, optionally named (``f(x = 1)``)."""

    name: str | None
    value: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str
    expr: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True)
class Cast(Expr):
    type: TypeRef
    expr: Expr


@dataclass(frozen=True)
class ListExpr(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class StructExpr(Expr):
    fields: tuple[tuple[str, Expr], ...]
    rest: bool = False  # `{ a = 1, ... }`: the other fields take their defaults


@dataclass(frozen=True)
class DontCare(Expr):
    pass


@dataclass(frozen=True)
class InvalidHeader(Expr):
    """``{#}``: an invalid header (p4c 1.2.4.8 takes it only under a cast, ``(h_t){#}``)."""


@dataclass(frozen=True)
class Default(Expr):
    pass


@dataclass(frozen=True)
class TypeExpr(Expr):
    """A type used in expression position, e.g. the type in ``T.minSizeInBits()``."""

    type: TypeRef


# ----------------------------------------------------------------------------- statements
@dataclass(frozen=True)
class Stmt:
    pos: Pos


@dataclass(frozen=True)
class Assign(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class CallStmt(Stmt):
    call: Call


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(frozen=True)
class Block(Stmt):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True)
class SwitchCase:
    pos: Pos
    label: Expr  # Name, Default or an expression
    body: Block | None  # None: fall through to the next case


@dataclass(frozen=True)
class Switch(Stmt):
    expr: Expr
    cases: tuple[SwitchCase, ...]


@dataclass(frozen=True)
class Exit(Stmt):
    pass


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None


@dataclass(frozen=True)
class Empty(Stmt):
    pass


@dataclass(frozen=True)
class VarDecl(Stmt):
    type: TypeRef
    name: str
    init: Expr | None
    annotations: Annotations = ()


@dataclass(frozen=True)
class ConstDecl(Stmt):
    type: TypeRef
    name: str
    value: Expr
    annotations: Annotations = ()


@dataclass(frozen=True)
class Instance(Stmt):
    """``Type<args>(ctor args) name;`` inside a block or at top level."""

    type: TypeRef
    args: tuple[Arg, ...]
    name: str
    annotations: Annotations = ()


# ----------------------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Param:
    pos: Pos
    direction: str  # '', 'in', 'out', 'inout'
    type: TypeRef
    name: str
    default: Expr | None = None
    annotations: Annotations = ()


@dataclass(frozen=True)
class FieldDecl:
    pos: Pos
    type: TypeRef
    name: str
    annotations: Annotations = ()


@dataclass(frozen=True)
class StructDecl(Stmt):
    """header, header_union or struct declaration."""

    kind: str  # 'header' 'header_union' 'struct'
    name: str
    fields: tuple[FieldDecl, ...]
    annotations: Annotations = ()


@dataclass(frozen=True)
class EnumDecl(Stmt):
    name: str
    members: tuple[tuple[str, Expr | None], ...]
    underlying: TypeRef | None = None
    annotations: Annotations = ()


@dataclass(frozen=True)
class ErrorDecl(Stmt):
    members: tuple[str, ...]


@dataclass(frozen=True)
class MatchKindDecl(Stmt):
    members: tuple[str, ...]


@dataclass(frozen=True)
class TypedefDecl(Stmt):
    name: str
    type: TypeRef
    is_new_type: bool = False


@dataclass(frozen=True)
class MethodProto:
    pos: Pos
    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ret: TypeRef | None  # None for constructors
    annotations: Annotations = ()


@dataclass(frozen=True)
class ExternDecl(Stmt):
    """An extern object type (methods) or an extern function (``func`` set)."""

    name: str
    type_params: tuple[str, ...]
    methods: tuple[MethodProto, ...] = ()
    func: MethodProto | None = None
    annotations: Annotations = ()


@dataclass(frozen=True)
class ProtoDecl(Stmt):
    """A parser/control/package type declaration (no body)."""

    kind: str  # 'parser' 'control' 'package'
    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]


@dataclass(frozen=True)
class ActionDecl(Stmt):
    name: str
    params: tuple[Param, ...]
    body: Block
    annotations: Annotations = ()


@dataclass(frozen=True)
class FunctionDecl(Stmt):
    name: str
    ret: TypeRef
    params: tuple[Param, ...]
    body: Block
    annotations: Annotations = ()
    type_params: tuple[str, ...] = ()  # a generic function: T f<T>(in T x) { ... }


@dataclass(frozen=True)
class KeyElement:
    pos: Pos
    expr: Expr
    match_kind: str
    annotations: Annotations = ()


@dataclass(frozen=True)
class ActionRef:
    pos: Pos
    name: Expr  # Name (possibly dotted via Member)
    args: tuple[Arg, ...]
    annotations: Annotations = ()


@dataclass(frozen=True)
class Entry:
    pos: Pos
    keys: tuple[Expr, ...]
    action: ActionRef
    priority: Expr | None
    annotations: Annotations = ()


@dataclass(frozen=True)
class TableProp:
    pos: Pos
    name: str
    const: bool
    value: object  # tuple[KeyElement] | tuple[ActionRef] | tuple[Entry] | ActionRef | Expr


@dataclass(frozen=True)
class TableDecl(Stmt):
    name: str
    props: tuple[TableProp, ...]
    annotations: Annotations = ()

    def prop(self, name: str) -> TableProp | None:
        """The property ``name`` or None."""
        for p in self.props:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class SelectCase:
    pos: Pos
    keyset: Expr  # a ListExpr for tuples
    state: str


@dataclass(frozen=True)
class Transition:
    pos: Pos
    select: tuple[Expr, ...] | None  # None: unconditional
    cases: tuple[SelectCase, ...] = ()
    state: str = ""


@dataclass(frozen=True)
class StateDecl:
    pos: Pos
    name: str
    stmts: tuple[Stmt, ...]
    transition: Transition | None
    annotations: Annotations = ()


@dataclass(frozen=True)
class ValueSetDecl(Stmt):
    type: TypeRef
    size: Expr
    name: str


@dataclass(frozen=True)
class ParserDecl(Stmt):
    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ctor_params: tuple[Param, ...]
    locals: tuple[Stmt, ...]
    states: tuple[StateDecl, ...]
    annotations: Annotations = ()


@dataclass(frozen=True)
class ControlDecl(Stmt):
    name: str
    type_params: tuple[str, ...]
    params: tuple[Param, ...]
    ctor_params: tuple[Param, ...]
    locals: tuple[Stmt, ...]
    body: Block
    annotations: Annotations = ()


@dataclass(frozen=True)
class Program:
    decls: tuple[Stmt, ...] = field(default_factory=tuple)


def expr_text(e: Expr) -> str:
    """Source-like text of an expression (key names, messages)."""
    if isinstance(e, Name):
        return ("." if e.top else "") + e.name
    if isinstance(e, Member):
        return f"{expr_text(e.expr)}.{e.name}"
    if isinstance(e, Index):
        return f"{expr_text(e.expr)}[{expr_text(e.index)}]"
    if isinstance(e, Slice):
        return f"{expr_text(e.expr)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, IntLit):  # as p4c names keys: the base kept, the width dropped
        return {16: hex, 8: oct, 2: bin}.get(e.base, str)(e.value)
    if isinstance(e, Cast):
        return f"({type_text(e.type)}){expr_text(e.expr)}"
    if isinstance(e, Call):
        return f"{expr_text(e.func)}({', '.join(expr_text(a.value) for a in e.args)})"
    if isinstance(e, Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    return type(e).__name__


def type_text(t: TypeRef) -> str:
    """Source-like text of a type: ``bit<8>``, ``bool``, a name."""
    if t.kind in ("bit", "int", "varbit") and isinstance(t.width, IntLit):
        return f"{t.kind}<{t.width.value}>"
    return t.name or t.kind


def children(x: object) -> Iterator[object]:
    """The AST nodes directly under ``x`` (lists and tuples looked through, positions not)."""
    if isinstance(x, list | tuple):
        for item in x:
            if dataclasses.is_dataclass(item) and not isinstance(item, type):
                yield item
            else:
                yield from children(item)
        return
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            if f.name != "pos":
                yield from children([getattr(x, f.name)])


def nodes(x: object) -> Iterator[object]:
    """Every AST node under ``x`` (statements and expressions), ``x`` first."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        yield x
    for c in children(x):
        yield from nodes(c)
