"""Values of local variables known at compile time, for ``/`` and ``%`` as p4c sees them.

p4c-bm2-ss propagates constants through local variables before it refuses a ``/`` or
``%`` of a run-time value (``bit<16> x = 10; ... x % 7`` compiles there, to 3). fabemu
does the same for those two operators only, so the JSON of every other expression stays
as it is:

    analyse(program)  -- once, on the AST: for every read of a variable declared in a
                         control's apply block, an action or a function body, the
                         definition reaching it (its initializer or the right-hand side
                         of the one assignment that reaches it), or "unknown"
    Known.const(e, t) -- at a '/' or '%' whose operand is not constant: evaluate the
                         operand, reads of locals replaced by their reaching definitions

Conservative where p4c is cleverer: a variable assigned in an ``if`` or ``switch`` branch
is unknown after it (p4c too: even when every branch assigns the same value); one passed
to a call, or written through a slice or a member, is unknown from then on;
control-level variables and parser locals are never propagated (p4c propagates some of
them). A directly called action's parameter bound to a constant argument is that constant
(its scope binds it so), and reads of it resolve through the scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, ObjRef, Value

if TYPE_CHECKING:
    from emulator.p4c.lowering.context import Ctx


@dataclass(frozen=True)
class Def:
    """A local's value at a read: ``expr`` converted to the variable's ``type``."""

    expr: A.Expr
    type: A.TypeRef


UNKNOWN = "unknown"  # a local whose value is not known at this read
OUTER = "outer"  # not a body local, and no body local has this name: resolve as declared
Reads = dict[int, "Def | str"]  # id(A.Name) -> reaching definition, UNKNOWN or OUTER
_TYPES = ("type", "errors")  # ObjRef kinds an OUTER name may resolve to (enum members)


class _Decl:
    """One local declaration (identity matters: inner blocks may shadow a name)."""

    def __init__(self, type_: A.TypeRef) -> None:
        self.type = type_


State = dict[_Decl, "Def | None"]


class _Body:
    """The reaching-definition walk of one body (statements in order, no loops)."""

    def __init__(self, reads: Reads, local_names: set[str]) -> None:
        self.reads = reads
        self.local_names = local_names
        self.scopes: list[dict[str, _Decl]] = [{}]

    def lookup(self, name: str) -> _Decl | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def record(self, e: object, state: State) -> None:
        """Classify every variable read in expression ``e``."""
        for n in A.nodes(e):
            if isinstance(n, A.Name) and not n.top:
                decl = self.lookup(n.name)
                if decl is not None:
                    self.reads[id(n)] = state.get(decl) or UNKNOWN
                elif n.name not in self.local_names:
                    self.reads[id(n)] = OUTER

    def forget_written(self, e: object, state: State) -> None:
        """Locals passed to a call in ``e`` or used as a method's receiver: unknown."""
        for n in A.nodes(e):
            if isinstance(n, A.Call):
                targets = [a.value for a in n.args]
                if isinstance(n.func, A.Member):
                    targets.append(n.func.expr)
                for t in targets:
                    self._forget(t, state)

    def _forget(self, lvalue: A.Expr, state: State) -> None:
        while isinstance(lvalue, A.Member | A.Index | A.Slice):
            lvalue = lvalue.expr
        if isinstance(lvalue, A.Name) and (decl := self.lookup(lvalue.name)) is not None:
            state[decl] = None

    def stmts(self, stmts: tuple[A.Stmt, ...], state: State) -> None:
        self.scopes.append({})
        for s in stmts:
            self.stmt(s, state)
        self.scopes.pop()

    def stmt(self, s: A.Stmt, state: State) -> None:
        if isinstance(s, A.Block):
            self.stmts(s.stmts, state)
        elif isinstance(s, A.VarDecl | A.ConstDecl):
            value = s.init if isinstance(s, A.VarDecl) else s.value
            if value is not None:
                self.record(value, state)
                self.forget_written(value, state)
            new = _Decl(s.type)
            self.scopes[-1][s.name] = new
            state[new] = Def(value, s.type) if value is not None else None
        elif isinstance(s, A.Assign):
            self.record(s.rhs, state)
            self.record(tuple(_reads_in_lvalue(s.lhs)), state)
            self.forget_written(s.rhs, state)
            decl = self.lookup(s.lhs.name) if isinstance(s.lhs, A.Name) else None
            if decl is not None:
                state[decl] = Def(s.rhs, decl.type)
            else:
                self._forget(s.lhs, state)
        elif isinstance(s, A.If):
            self.record(s.cond, state)
            self.forget_written(s.cond, state)
            self._branches(state, [[s.then], [s.other] if s.other else []])
        elif isinstance(s, A.Switch):
            self.record(s.expr, state)
            self.forget_written(s.expr, state)
            self._branches(state, [[c.body] if c.body else [] for c in s.cases] + [[]])
        else:  # calls, return, exit: reads, and what calls may write
            self.record(s, state)
            self.forget_written(s, state)

    def _branches(self, state: State, branches: Sequence[Sequence[A.Stmt]]) -> None:
        """Run each branch on a copy; afterwards a local keeps only a definition that no
        branch replaced (identity, not value: p4c refuses ``x = 10`` in one branch too)."""
        after = []
        for body in branches:
            copy = dict(state)
            self.stmts(tuple(body), copy)
            after.append(copy)
        for decl, d in list(state.items()):
            if any(branch.get(decl) is not d for branch in after):
                state[decl] = None


def _reads_in_lvalue(lhs: A.Expr) -> Iterator[A.Expr]:
    """The expressions an assignment target reads (indices, slice bounds), not its base."""
    while isinstance(lhs, A.Member | A.Index | A.Slice):
        if isinstance(lhs, A.Index):
            yield lhs.index
        elif isinstance(lhs, A.Slice):
            yield from (lhs.hi, lhs.lo)
        lhs = lhs.expr


def _locals(body: object) -> set[str]:
    return {n.name for n in A.nodes(body) if isinstance(n, A.VarDecl | A.ConstDecl)}


def analyse(prog: A.Program) -> Reads:
    """Reaching definitions of locals read in apply blocks, actions and functions."""
    reads: Reads = {}

    def body(stmts: A.Block) -> None:
        _Body(reads, _locals(stmts)).stmts(stmts.stmts, {})

    for d in prog.decls:
        if isinstance(d, A.ActionDecl | A.FunctionDecl):
            body(d.body)
        elif isinstance(d, A.ControlDecl):
            for loc in d.locals:
                if isinstance(loc, A.ActionDecl):
                    body(loc.body)
            body(d.body)
    return reads


class _Unknown(Exception):
    """A read whose value is not known at compile time."""


Lower = Callable[[A.Expr, "Ctx"], "Value"]
Coerce = Callable[["Value", T.Type, Pos], "Value"]
Resolve = Callable[[A.TypeRef], T.Type]


class Known:
    """Evaluates expressions with locals replaced by their reaching definitions, in the
    scope of ``ctx`` (the ``/`` or ``%`` being lowered); ``lower``, ``coerce`` and
    ``resolve`` (a type reference's type) come from lowering.exprs, which imports this
    module."""

    def __init__(self, ctx: Ctx, lower: Lower, coerce: Coerce, resolve: Resolve) -> None:
        self.ctx, self.lower, self.coerce, self.resolve = ctx, lower, coerce, resolve

    def const(self, e: A.Expr, t: T.Type) -> Const | None:
        """``e`` as a constant of type ``t``, or None when it is not known."""
        v = self._value(e, 0)
        return self.coerce(v, t, e.pos) if v is not None else None  # type: ignore[return-value]

    def _value(self, e: A.Expr, depth: int) -> Const | None:
        from emulator.p4c.lowering.context import Ctx as Context

        if depth > 64:
            return None
        env = self.ctx.env
        ectx = Context(env, env.globals, "global")
        ectx.subst = lambda n: self._read(n, depth)
        try:
            v = self.lower(e, ectx)
        except (_Unknown, CompileError):
            return None
        return v if isinstance(v, Const) else None

    def _read(self, n: A.Name, depth: int) -> Value:
        info = self.ctx.env.const_reads.get(id(n))
        if isinstance(info, Def):
            known = self._value(info.expr, depth + 1)
            if known is None:
                raise _Unknown
            return self.coerce(known, self.resolve(info.type), n.pos)
        outer = self.ctx.scope.lookup(n.name) if info == OUTER else None
        if isinstance(outer, Const) or (isinstance(outer, ObjRef) and outer.kind in _TYPES):
            return outer  # a constant, an enum or error type (for its members)
        raise _Unknown
