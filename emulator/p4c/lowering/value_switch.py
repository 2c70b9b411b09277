"""``switch`` on a bit<W>/enum/error value: an if chain on the value (as p4c-bm2-ss emits it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import RV, Const, expr_json
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import lower, scalar

#: the control lowering's forward pass: statements -> control IR
Forward = Callable[[tuple[A.Stmt, ...] | list[A.Stmt], Ctx], list[Any]]


def _groups(
    s: A.Switch, v: RV, ctx: Ctx, forward: Forward
) -> tuple[list[tuple[list[Const], list[Any], Pos]], list[Any]]:
    """The label groups with their bodies, and the default's body ([] without one). Where
    ``default`` stands makes no difference: p4c makes the switch a table whose default
    action is the default's body, so a label after it still matches (p4c only warns), and
    labels sharing the default's body need no test of their own. Labels at the end with no
    body are dropped, as p4c drops them ("fallthrough with no statement"): they go to the
    default."""
    groups: list[tuple[list[Const], list[Any], Pos]] = []
    otherwise: list[Any] = []
    pending: list[Const] = []
    is_default = False
    for c in s.cases:
        if isinstance(c.label, A.Default):
            is_default = True
        else:
            lab = lower(c.label, ctx, v.type)
            if not isinstance(lab, Const):
                raise CompileError(c.label.pos, "switch labels must be constants")
            if isinstance(lab.type, T.InfInt) and isinstance(v.type, T.Bits):
                lab = Const(lab.value & ((1 << v.type.width) - 1), v.type)
            pending.append(lab)
        if c.body is None:
            continue
        body = forward(c.body.stmts, ctx.child())
        if is_default:
            otherwise = body
        elif pending:
            groups.append((pending, body, c.pos))
        pending, is_default = [], False
    if is_default:
        raise CompileError(s.cases[-1].pos, "default label needs a body")
    return groups, otherwise  # labels left without a body: no case (p4c only warns)


def value_switch(s: A.Switch, ctx: Ctx, forward: Forward) -> list[Any]:
    """``switch (e) { 1: {..} 2: 3: {..} default: {..} }`` on a bit/enum value -> if chain."""
    saved = ctx.prims
    ctx.prims = []
    v = scalar(lower(s.expr, ctx), s.expr.pos)
    if not isinstance(v.type, T.Bits | T.EnumT | T.ErrorT) or isinstance(v, Const):
        raise CompileError(
            s.expr.pos,
            f"switch needs table.apply().action_run or a bit<W>/enum value, found {v.type.show()}",
        )
    pre: list[Any] = []
    if ctx.prims or v.json.get("type") != "field":
        tmp = ctx.temp(v.type, s.expr.pos, "switch_value")
        ctx.emit("assign", [tmp.json, v.json], s.expr.pos)
        v = RV(tmp.json, v.type)
        pre = [("prims", ctx.prims, s.expr.pos)]
    ctx.prims = saved
    groups, otherwise = _groups(s, v, ctx, forward)
    chain: list[Any] = otherwise
    for labels, body, pos in reversed(groups):
        cond: dict[str, Any] | None = None
        for lab in labels:
            eq = expr_json("==", v.json, lab.json())
            cond = eq if cond is None else expr_json("or", cond, eq)
        assert cond is not None
        chain = [("if", cond, body, chain, pos)]
    return [*pre, *chain]
