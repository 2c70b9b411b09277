"""Side effects in expressions put in program order: table applies and short circuits.

BMv2 can only branch on a table's hit or miss through the table's ``next_tables``, so an
apply nested in an expression (``bool b = t.apply().hit;``, ``if (x && !t.apply().miss)``,
``f(t.apply().hit)``) becomes, as p4c's side-effect ordering does it, a temporary set in an
``if (t.apply().hit)`` placed before the statement. ``&&``/``||`` keep their short circuit
when the right operand applies a table or calls something with side effects (an action, a
function with out/inout parameters, an extern): it runs only when the left operand does not
decide. ``x = c ? f() : g()`` becomes ``if (c) x = f(); else x = g();``. Statements are
rewritten as AST; the control and action lowering then handle the plain forms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import ObjRef
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import lower

IsTable = Callable[[A.Expr], bool]
HasEffects = Callable[[A.Call], bool]  # whether a call can change state (not isValid(), ...)
NewTemp = Callable[[Pos], str]  # a fresh bool temporary, bound in scope under the returned name


def applied_member(e: A.Expr, is_table: IsTable) -> str | None:
    """``hit``/``miss``/``action_run`` when ``e`` is ``t.apply().<that>`` for a table t."""
    if (
        isinstance(e, A.Member)
        and e.name in ("hit", "miss", "action_run")
        and isinstance(e.expr, A.Call)
        and isinstance(e.expr.func, A.Member)
        and e.expr.func.name == "apply"
        and is_table(e.expr.func.expr)
    ):
        return e.name
    return None


class EffectOrder:
    """Rewrites one statement whose expressions apply tables, or call something with side
    effects where they may not run, into plain statements."""

    def __init__(self, is_table: IsTable, has_effects: HasEffects, new_temp: NewTemp) -> None:
        self.is_table = is_table
        self.has_effects = has_effects
        self.new_temp = new_temp

    # -------------------------------------------------------------- statements
    def statement(self, s: A.Stmt) -> list[A.Stmt] | None:
        """The statements replacing ``s``, or None when ``s`` applies no table in an expression."""
        if isinstance(s, A.If) and not self._plain_condition(s.cond) and self.needs(s.cond):
            pre, cond = self.expr(s.cond)
            return [*pre, replace(s, cond=cond)]
        if isinstance(s, A.Assign) and self.needs(s.rhs):
            if self.applies(s.lhs):
                raise CompileError(s.lhs.pos, "a table cannot be applied on the left of '='")
            if isinstance(s.rhs, A.Ternary) and self._effects_in_arms(s.rhs):
                then = replace(s, rhs=s.rhs.then)
                return [A.If(s.pos, s.rhs.cond, then, replace(s, rhs=s.rhs.other))]
            pre, rhs = self.expr(s.rhs)
            return [*pre, replace(s, rhs=rhs)]
        if isinstance(s, A.VarDecl) and s.init is not None and self.needs(s.init):
            if isinstance(s.init, A.Ternary) and self._effects_in_arms(s.init):
                assign = A.Assign(s.pos, A.Name(s.pos, s.name), s.init)
                return [replace(s, init=None), *(self.statement(assign) or [assign])]
            pre, init = self.expr(s.init)
            return [*pre, replace(s, init=init)]
        if isinstance(s, A.CallStmt) and any(self.needs(a.value) for a in s.call.args):
            pre, call = self.expr(s.call)
            assert isinstance(call, A.Call)
            return [*pre, replace(s, call=call)]
        return None

    def _plain_condition(self, cond: A.Expr) -> bool:
        """``[!]t.apply().hit`` / ``.miss``: the control lowering branches on it directly."""
        while isinstance(cond, A.Unary) and cond.op == "!":
            cond = cond.expr
        return applied_member(cond, self.is_table) in ("hit", "miss")

    def applies(self, e: A.Expr) -> bool:
        """Whether ``e`` contains ``t.apply().hit``/``.miss``/``.action_run``."""
        if applied_member(e, self.is_table) is not None:
            return True
        return any(self.applies(c) for c in _children(e))

    def effects(self, e: A.Expr) -> bool:
        """Whether evaluating ``e`` applies a table or calls something with side effects."""
        if self.applies(e) or (isinstance(e, A.Call) and self.has_effects(e)):
            return True
        return any(self.effects(c) for c in _children(e))

    def _effects_in_arms(self, e: A.Ternary) -> bool:
        return self.effects(e.then) or self.effects(e.other)

    def needs(self, e: A.Expr) -> bool:
        """Whether ``e`` must be rewritten: a table apply, or side effects that a short
        circuit (``&&``, ``||``, ``?:``) may skip."""
        if self.applies(e):
            return True
        if isinstance(e, A.Binary) and e.op in ("&&", "||") and self.effects(e.right):
            return True
        if isinstance(e, A.Ternary) and self._effects_in_arms(e):
            return True
        return any(self.needs(c) for c in _children(e))

    # -------------------------------------------------------------- expressions
    def expr(self, e: A.Expr) -> tuple[list[A.Stmt], A.Expr]:
        """Statements to run first, and what remains of ``e``."""
        kind = applied_member(e, self.is_table)
        if kind == "action_run":
            raise CompileError(e.pos, "'action_run' can only be used in a switch statement")
        if kind is not None:
            tmp = self.new_temp(e.pos)
            set_to = [
                A.Assign(e.pos, A.Name(e.pos, tmp), A.BoolLit(e.pos, v)) for v in (True, False)
            ]
            return [A.If(e.pos, e, set_to[0], set_to[1])], A.Name(e.pos, tmp)
        if isinstance(e, A.Binary) and e.op in ("&&", "||") and self.effects(e.right):
            return self._short_circuit(e)
        if isinstance(e, A.Ternary) and self._effects_in_arms(e):
            raise CompileError(
                e.pos,
                "a table apply or a call with side effects inside an arm of a nested '?:' "
                "is not supported; use if/else",
            )
        return self._in_order(e)

    def _short_circuit(self, e: A.Binary) -> tuple[list[A.Stmt], A.Expr]:
        """``l && r`` -> ``tmp = l; if (tmp) { tmp = r; }`` (``||``: ``if (!tmp)``)."""
        pre, left = self.expr(e.left)
        tmp = self.new_temp(e.pos)
        name = A.Name(e.pos, tmp)
        guard: A.Expr = name if e.op == "&&" else A.Unary(e.pos, "!", name)
        rpre, right = self.expr(e.right)
        body = A.Block(e.pos, (*rpre, A.Assign(e.pos, name, right)))
        return [*pre, A.Assign(e.pos, name, left), A.If(e.pos, guard, body, None)], name

    def _in_order(self, e: A.Expr) -> tuple[list[A.Stmt], A.Expr]:
        """Hoist from the operands left to right; refuses a call before a hoisted apply (it
        would run after the table, out of the program's order)."""
        kids = _children(e)
        if not kids:
            return [], e
        pre: list[A.Stmt] = []
        new: list[A.Expr] = []
        for i, k in enumerate(kids):
            if self.needs(k) and any(self.effects(x) for x in kids[:i]):
                raise CompileError(
                    k.pos,
                    "a table apply or short circuit after a call with side effects in the same "
                    "expression is not supported; compute the call into a variable first",
                )
            p, nk = self.expr(k)
            pre += p
            new.append(nk)
        return pre, _rebuild(e, new)


def _children(e: A.Expr) -> list[A.Expr]:
    """The operand expressions of ``e``, in evaluation order."""
    if isinstance(e, A.Member | A.Unary | A.Cast):
        return [e.expr]
    if isinstance(e, A.Index):
        return [e.expr, e.index]
    if isinstance(e, A.Slice):
        return [e.expr, e.hi, e.lo]
    if isinstance(e, A.Binary):
        return [e.left, e.right]
    if isinstance(e, A.Ternary):
        return [e.cond, e.then, e.other]
    if isinstance(e, A.Call):
        return [e.func, *(a.value for a in e.args)]
    if isinstance(e, A.ListExpr):
        return list(e.items)
    if isinstance(e, A.StructExpr):
        return [x for _, x in e.fields]
    return []


def _rebuild(e: A.Expr, kids: list[A.Expr]) -> A.Expr:
    """``e`` with its operands (as listed by ``_children``) replaced."""
    if isinstance(e, A.Member | A.Unary | A.Cast):
        return replace(e, expr=kids[0])
    if isinstance(e, A.Index):
        return replace(e, expr=kids[0], index=kids[1])
    if isinstance(e, A.Slice):
        return replace(e, expr=kids[0], hi=kids[1], lo=kids[2])
    if isinstance(e, A.Binary):
        return replace(e, left=kids[0], right=kids[1])
    if isinstance(e, A.Ternary):
        return replace(e, cond=kids[0], then=kids[1], other=kids[2])
    if isinstance(e, A.Call):
        args = tuple(replace(a, value=v) for a, v in zip(e.args, kids[1:], strict=True))
        return replace(e, func=kids[0], args=args)
    if isinstance(e, A.ListExpr):
        return replace(e, items=tuple(kids))
    if isinstance(e, A.StructExpr):
        return replace(e, fields=tuple((n, v) for (n, _), v in zip(e.fields, kids, strict=True)))
    return e


PURE_METHODS = {
    "isValid",
    "minSizeInBits",
    "minSizeInBytes",
    "maxSizeInBits",
    "maxSizeInBytes",
    "lookahead",
}


def call_has_effects(call: A.Call, ctx: Ctx) -> bool:
    """Whether a call can change state: anything but header queries, ``lookahead``, a
    one-argument ``register.read`` and functions with only ``in`` parameters and no calls."""
    try:
        fn = lower(call.func, ctx)
    except CompileError:
        return True
    if not isinstance(fn, ObjRef):
        return True
    if fn.kind == "method":
        base = fn.decl
        if fn.name in PURE_METHODS:
            return False
        is_register = isinstance(base, ObjRef) and base.kind == "extern"
        is_register = is_register and base.extra["type"] == "register"
        return not (is_register and fn.name == "read" and len(call.args) == 1)
    if fn.kind == "function":
        decl: A.FunctionDecl = fn.decl
        writes = any(p.direction in ("out", "inout") for p in decl.params)
        return writes or _has_call(decl.body)
    return True


def _has_call(s: A.Stmt | None) -> bool:
    if isinstance(s, A.CallStmt):
        return True
    if isinstance(s, A.Block):
        return any(_has_call(x) for x in s.stmts)
    if isinstance(s, A.If):
        return _has_call(s.then) or _has_call(s.other)
    if isinstance(s, A.Switch):
        return any(_has_call(c.body) for c in s.cases)
    return False


def bind_temp(ctx: Ctx, pos: Pos) -> str:
    """A bool temporary bound in ``ctx``'s scope under a name no program can write."""
    tmp = ctx.temp(T.BOOL, pos, "tmp")
    name = f"{tmp.json['value'][1]}$hoisted"
    ctx.scope.bind(name, tmp)
    return name


def effect_order(ctx: Ctx, is_table: IsTable) -> EffectOrder:
    """The rewriter for statements lowered in ``ctx``."""
    return EffectOrder(is_table, lambda c: call_has_effects(c, ctx), lambda p: bind_temp(ctx, p))
