"""Table applies inside expressions: ``t.apply().hit`` / ``.miss`` moved out into statements.

BMv2 can only branch on a table's hit or miss through the table's ``next_tables``, so an
apply nested in an expression (``bool b = t.apply().hit;``, ``if (x && !t.apply().miss)``,
``f(t.apply().hit)``) becomes, as p4c's side-effect ordering does it, a temporary set in an
``if (t.apply().hit)`` placed before the statement. ``&&``/``||`` keep their short circuit:
the right operand (and the table it applies) is evaluated only when the left one does not
decide. Statements are rewritten as AST; the control lowering then handles the plain forms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A

IsTable = Callable[[A.Expr], bool]
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


class ApplyHoister:
    """Rewrites one statement whose expressions apply tables into plain statements."""

    def __init__(self, is_table: IsTable, new_temp: NewTemp) -> None:
        self.is_table = is_table
        self.new_temp = new_temp

    # -------------------------------------------------------------- statements
    def statement(self, s: A.Stmt) -> list[A.Stmt] | None:
        """The statements replacing ``s``, or None when ``s`` applies no table in an expression."""
        if isinstance(s, A.If) and not self._plain_condition(s.cond) and self.applies(s.cond):
            pre, cond = self.expr(s.cond)
            return [*pre, replace(s, cond=cond)]
        if isinstance(s, A.Assign) and self.applies(s.rhs):
            if self.applies(s.lhs):
                raise CompileError(s.lhs.pos, "a table cannot be applied on the left of '='")
            pre, rhs = self.expr(s.rhs)
            return [*pre, replace(s, rhs=rhs)]
        if isinstance(s, A.VarDecl) and s.init is not None and self.applies(s.init):
            pre, init = self.expr(s.init)
            return [*pre, replace(s, init=init)]
        if isinstance(s, A.CallStmt) and any(self.applies(a.value) for a in s.call.args):
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
        if isinstance(e, A.Binary) and e.op in ("&&", "||") and self.applies(e.right):
            return self._short_circuit(e)
        if isinstance(e, A.Ternary) and (self.applies(e.then) or self.applies(e.other)):
            raise CompileError(
                e.pos, "a table applied inside an arm of '?:' is not supported; use if/else"
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
            if self.applies(k) and any(_calls(x) for x in kids[:i]):
                raise CompileError(
                    k.pos, "a table applied after a call in the same expression is not supported"
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


def _calls(e: A.Expr) -> bool:
    """Whether ``e`` calls anything but a header's ``isValid()`` (which has no effect)."""
    if isinstance(e, A.Call) and not (
        isinstance(e.func, A.Member) and e.func.name == "isValid" and not e.args
    ):
        return True
    return any(_calls(c) for c in _children(e))
