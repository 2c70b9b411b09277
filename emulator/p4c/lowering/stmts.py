"""Straight-line statement lowering to BMv2 primitives (action bodies, synthesized actions).

``if`` inside an action becomes ``_jump_if_zero``/``_jump`` primitives (BMv2 core
primitives), so extern calls stay conditional.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from emulator.p4c.diagnostics import BackendLimit, CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.values import (
    RV,
    Const,
    HeaderRef,
    InvalidHeaderV,
    ListV,
    ObjRef,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
    Value,
    expr_json,
    hexv,
    mask,
    to_bool,
    to_data,
)  # fmt: skip
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.effect_order import effect_order
from emulator.p4c.lowering.exprs import coerce, const_eval, const_int, lower, member, scalar
from emulator.p4c.lowering.named_init import by_field, default_fill


def lower_block(stmts: tuple[A.Stmt, ...] | list[A.Stmt], ctx: Ctx) -> None:
    """Lower statements in order into ``ctx.prims``; returns are patched to jump to the end."""
    returns: list[int] = []
    ctx_returns = ctx.returns
    ctx.returns = returns
    for s in _reachable(stmts):
        before = len(ctx.prims)
        lower_stmt(s, ctx)
        if exits(ctx.prims, before, s.pos):
            break
    ctx.returns = ctx_returns
    end = len(ctx.prims)
    for i in returns:
        ctx.prims[i]["parameters"] = [hexv(end)]


def _reachable(stmts: tuple[A.Stmt, ...] | list[A.Stmt]) -> list[A.Stmt]:
    """Statements up to an ``exit`` (those after it never run; p4c drops them too, and
    BMv2's ``exit`` primitive does not stop the action's later primitives)."""
    out: list[A.Stmt] = []
    for s in stmts:
        out.append(s)
        if isinstance(s, A.Exit):
            break
    return out


def lower_stmt(s: A.Stmt, ctx: Ctx) -> None:
    hoisted = effect_order(ctx, lambda e: False).statement(s)
    if hoisted is not None:
        for x in hoisted:
            lower_stmt(x, ctx)
        return
    if isinstance(s, A.Block):
        inner = ctx.child()
        for x in _reachable(s.stmts):
            before = len(ctx.prims)
            lower_stmt(x, inner)
            if exits(ctx.prims, before, x.pos):
                break
    elif isinstance(s, A.Empty):
        pass
    elif isinstance(s, A.Assign):
        assign_expr(s.lhs, s.rhs, ctx, s.pos)
    elif isinstance(s, A.CallStmt):
        assert ctx.calls is not None
        ctx.calls(ctx, s.call, True)
    elif isinstance(s, A.VarDecl):
        declare_var(s, ctx)
    elif isinstance(s, A.ConstDecl):
        t = resolve_type(ctx.env, s.type, const_eval)
        v = lower(s.value, ctx, t)
        if not isinstance(v, Const):
            raise CompileError(
                s.value.pos, f"initializer of constant '{s.name}' is not a compile-time constant"
            )
        ctx.scope.bind(s.name, coerce(v, t, s.value.pos))
    elif isinstance(s, A.If):
        lower_if(s, ctx)
    elif isinstance(s, A.Exit):
        ctx.emit("exit", [], s.pos)
    elif isinstance(s, A.Return):
        result = ctx.func_result
        if s.value is not None:
            if result is None:
                raise CompileError(s.pos, "return with a value is only allowed in functions")
            assign_value(result, lower(s.value, ctx, result.type), ctx, s.value.pos)
        rets = ctx.returns
        if rets is None:
            raise CompileError(s.pos, "return is not allowed here")
        rets.append(len(ctx.prims))
        ctx.emit("_jump", [hexv(0)], s.pos)
    elif isinstance(s, A.Switch):
        raise CompileError(s.pos, "switch statements are not supported inside actions")
    elif isinstance(s, A.Instance):
        raise CompileError(s.pos, "instantiations are not allowed here")
    else:
        raise CompileError(s.pos, f"unsupported statement {type(s).__name__}")


def lower_if(s: A.If, ctx: Ctx) -> None:
    c = scalar(lower(s.cond, ctx), s.cond.pos)
    if not isinstance(c.type, T.BoolT):
        raise CompileError(s.cond.pos, f"condition must be bool, found {c.type.show()}")
    if isinstance(c, Const):
        branch = s.then if c.value else s.other
        if branch is not None:
            lower_stmt(branch, ctx)
        return
    exit_stmt = exit_in(s.then) or exit_in(s.other)
    if exit_stmt is not None:  # as p4c-bm2-ss, which has no conditional exit in an action
        raise BackendLimit(
            exit_stmt.pos, "exit under a condition in an action is not supported on BMv2"
        )
    jz = len(ctx.prims)
    ctx.emit("_jump_if_zero", [to_data(c), hexv(0)], s.pos)
    lower_stmt(s.then, ctx)
    if s.other is not None:
        j = len(ctx.prims)
        ctx.emit("_jump", [hexv(0)], s.pos)
        ctx.prims[jz]["parameters"][1] = hexv(len(ctx.prims))
        lower_stmt(s.other, ctx)
        ctx.prims[j]["parameters"][0] = hexv(len(ctx.prims))
    else:
        ctx.prims[jz]["parameters"][1] = hexv(len(ctx.prims))


def exits(prims: list[dict[str, Any]], start: int, pos: Pos) -> bool:
    """Whether the primitives from ``start`` (one statement's) end in an unconditional
    ``exit`` (a call of an action that exits): the statements after it must not run, and
    BMv2's ``exit`` primitive would not stop them. An ``exit`` behind a jump is conditional,
    which BMv2 cannot express inside one action: refused at ``pos``."""
    exit_at = [i for i in range(start, len(prims)) if prims[i]["op"] == "exit"]
    if not exit_at:
        return False
    jumps = [(i, _jump_target(prims[i])) for i in range(start, exit_at[0])]
    if any(t is not None and t > exit_at[0] for _, t in jumps):
        raise BackendLimit(pos, "exit under a condition in an action is not supported on BMv2")
    return True


def _jump_target(prim: dict[str, Any]) -> int | None:
    """Where a ``_jump``/``_jump_if_zero`` primitive goes (None for other primitives)."""
    if prim["op"] == "_jump":
        return int(prim["parameters"][0]["value"], 16)
    if prim["op"] == "_jump_if_zero":
        return int(prim["parameters"][1]["value"], 16)
    return None


def exit_in(s: A.Stmt | None) -> A.Exit | None:
    """The first ``exit`` in ``s`` (blocks and nested ifs included)."""
    if isinstance(s, A.Exit):
        return s
    if isinstance(s, A.Block):
        return next((e for x in s.stmts if (e := exit_in(x)) is not None), None)
    if isinstance(s, A.If):
        return exit_in(s.then) or exit_in(s.other)
    return None


def conditional_exit(s: A.Stmt | None) -> A.Exit | None:
    """The first ``exit`` under an ``if`` in an action body ``s`` (a literal ``true`` or
    ``false`` condition is no condition: p4c folds it first). p4c-bm2-ss refuses one in
    every action it keeps, and it keeps an action called directly even where the call's
    constant arguments would decide the condition."""
    if isinstance(s, A.Block):
        return next((e for x in s.stmts if (e := conditional_exit(x)) is not None), None)
    if isinstance(s, A.If):
        if isinstance(s.cond, A.BoolLit):
            return conditional_exit(s.then if s.cond.value else s.other)
        return exit_in(s.then) or exit_in(s.other)
    return None


def declare_var(s: A.VarDecl, ctx: Ctx) -> None:
    t = resolve_type(ctx.env, s.type, const_eval)
    hint = s.name if not ctx.prefix else f"{ctx.prefix.split('.')[-1]}.{s.name}"
    v = ctx.env.allocate(hint, t, s.pos, header_prefix=s.name)
    ctx.scope.bind(s.name, v)
    if s.init is not None:
        assign_value(v, lower(s.init, ctx, t), ctx, s.init.pos)
    elif isinstance(v, HeaderRef):
        ctx.emit("remove_header", [v.json()], s.pos)


def assign_expr(lhs: A.Expr, rhs: A.Expr, ctx: Ctx, pos: Pos) -> None:
    if isinstance(lhs, A.Slice):
        assign_slice(lhs, rhs, ctx, pos)
        return
    target = lower(lhs, ctx)
    expected = target.type if isinstance(target, RV) else None
    assign_value(target, lower(rhs, ctx, expected), ctx, rhs.pos, lhs.pos)


def assign_value(target: Value, v: Value, ctx: Ctx, pos: Pos, lpos: Pos | None = None) -> None:
    """Emit the primitives for ``target = v``."""
    lpos = lpos or pos
    if isinstance(v, ListV) and not isinstance(target, RV):
        v = _snapshot(v, _leaves(target), ctx, pos)
    if isinstance(target, RV):
        _assign_scalar(target, v, ctx, pos, lpos)
    elif isinstance(target, HeaderRef):
        _assign_header(target, v, ctx, pos)
    elif isinstance(target, StructRef):
        _assign_struct(target, v, ctx, pos)
    elif isinstance(target, ListV) and isinstance(v, ListV):  # a tuple local
        if len(target.items) != len(v.items):
            raise CompileError(pos, f"{target.type.show()} has {len(target.items)} elements")
        for dst, src in zip(target.items, v.items, strict=True):
            assign_value(dst, src, ctx, pos)
    elif isinstance(target, StackRef) and isinstance(v, StackRef):
        stacks = [{"type": "header_stack", "value": x.name} for x in (target, v)]
        ctx.emit("assign_header_stack", stacks, pos)
    elif isinstance(target, UnionStackRef) and isinstance(v, UnionStackRef):
        stacks = [{"type": "header_union_stack", "value": x.name} for x in (target, v)]
        ctx.emit("assign_union_stack", stacks, pos)
    elif isinstance(target, UnionRef) and isinstance(v, UnionRef):
        unions = [{"type": "header_union", "value": x.name} for x in (target, v)]
        ctx.emit("assign_union", unions, pos)
    elif not (isinstance(target, ObjRef) and target.kind == "dontcare"):
        raise CompileError(lpos, "left side of assignment is not assignable")


def _leaves(v: Value) -> list[str]:
    """The storage a value occupies, as JSON text of its fields."""
    if isinstance(v, RV):
        return [json.dumps(v.json)]
    if isinstance(v, HeaderRef):
        return [json.dumps({"type": "field", "value": [v.name, f]}) for f, _ in v.type.fields]
    if isinstance(v, StructRef):
        return [x for f in v.fields.values() for x in _leaves(f)]
    if isinstance(v, ListV):
        return [x for i in v.items for x in _leaves(i)]
    return []


def _snapshot(v: ListV, targets: list[str], ctx: Ctx, pos: Pos) -> ListV:
    """``{...}`` with the items that read the assignment's own target copied first, so
    ``p = {p.y, p.x}`` swaps (the right side is evaluated before any field is written)."""
    items: list[Value] = []
    for item in v.items:
        if isinstance(item, ListV):
            item = _snapshot(item, targets, ctx, pos)
        elif isinstance(item, RV) and any(x in json.dumps(item.json) for x in targets):
            tmp = ctx.temp(item.type, pos)
            ctx.emit("assign", [tmp.json, to_data(item)], pos)
            item = RV(tmp.json, item.type)
        items.append(item)
    return ListV(items, v.type, v.names, v.rest)


def _assign_scalar(target: RV, v: Value, ctx: Ctx, pos: Pos, lpos: Pos) -> None:
    if not target.lvalue and target.slice_of is not None:  # a slice given as out/inout
        src = coerce(scalar(v, pos), target.type, pos, "assigned value")
        base, lo, w = target.slice_of
        _insert(base, w, lo, T.width_of(target.type) or 0, src, ctx, pos)  # type: ignore[arg-type]
        return
    if not target.lvalue:
        raise CompileError(lpos, "left side of assignment is not assignable")
    src = scalar(v, pos)
    if isinstance(target.type, T.Varbit):
        if not isinstance(src.type, T.Varbit):
            raise CompileError(pos, "a varbit can only be assigned from a varbit")
        ctx.emit("assign_VL", [target.json, src.json], pos)
        return
    src = coerce(src, target.type, pos, "assigned value")  # type: ignore[assignment]
    ctx.emit("assign", [target.json, to_data(src)], pos)  # type: ignore[arg-type]


def _assign_fields(
    t: T.StructT, field_of: Callable[[str], Value], v: ListV, ctx: Ctx, pos: Pos
) -> None:
    """Assign ``{...}`` field by field (by name or position; ``...``: the rest by default)."""
    for name, item in by_field([n for n, _ in t.fields], v, t.show(), pos):
        if item is None:
            default_fill(field_of(name), ctx, pos, assign_value)
        else:
            assign_value(field_of(name), item, ctx, pos)


def _assign_header(target: HeaderRef, v: Value, ctx: Ctx, pos: Pos) -> None:
    if isinstance(v, HeaderRef):
        if v.type is not target.type:
            raise CompileError(
                pos, f"type mismatch: {v.type.show()} assigned to {target.type.show()}"
            )
        ctx.emit("assign_header", [target.json(), v.json()], pos)
        return
    if isinstance(v, InvalidHeaderV) and v.type is target.type:
        ctx.emit("remove_header", [target.json()], pos)
        return
    if isinstance(v, ListV):
        ctx.emit("add_header", [target.json()], pos)
        _assign_fields(target.type, lambda n: member(target, n, pos, ctx), v, ctx, pos)
        return
    raise CompileError(pos, f"cannot assign {v.type.show()} to {target.type.show()}")


def _assign_struct(target: StructRef, v: Value, ctx: Ctx, pos: Pos) -> None:
    if isinstance(v, StructRef):
        if v.type is not target.type:
            raise CompileError(
                pos, f"type mismatch: {v.type.show()} assigned to {target.type.show()}"
            )
        for f in target.fields:
            assign_value(target.fields[f], v.fields[f], ctx, pos)
        return
    if isinstance(v, ListV):
        _assign_fields(target.type, target.fields.__getitem__, v, ctx, pos)
        return
    raise CompileError(pos, f"cannot assign {v.type.show()} to {target.type.show()}")


def assign_slice(lhs: A.Slice, rhs: A.Expr, ctx: Ctx, pos: Pos) -> None:
    hi, lo = const_int(lhs.hi, ctx, "slice bound"), const_int(lhs.lo, ctx, "slice bound")
    base = lhs.expr
    while isinstance(base, A.Slice):  # x[15:8][3:0] is x[11:8]
        ihi, ilo = const_int(base.hi, ctx, "slice bound"), const_int(base.lo, ctx, "slice bound")
        if not (0 <= lo <= hi <= ihi - ilo):
            raise CompileError(lhs.pos, f"slice [{hi}:{lo}] out of range for [{ihi}:{ilo}]")
        hi, lo, base = hi + ilo, lo + ilo, base.expr
    target = lower(base, ctx)
    tt = target.type
    if not isinstance(target, RV) or not target.lvalue or not isinstance(tt, T.Bits) or tt.signed:
        raise CompileError(lhs.pos, "slice assignment needs a bit<W> field or variable")
    w = tt.width
    if not (0 <= lo <= hi < w):
        raise CompileError(lhs.pos, f"slice [{hi}:{lo}] out of range for {w}-bit value")
    sw = hi - lo + 1
    v = coerce(scalar(lower(rhs, ctx, T.Bits(sw)), rhs.pos), T.Bits(sw), rhs.pos, "assigned value")
    _insert(target.json, w, lo, sw, v, ctx, pos)  # type: ignore[arg-type]


def _insert(base: Any, w: int, lo: int, sw: int, v: RV | Const, ctx: Ctx, pos: Pos) -> None:
    """``base[lo + sw - 1:lo] = v`` for a ``w``-bit field or variable ``base`` (JSON)."""
    keep = mask(w) & ~(mask(sw) << lo)
    cleared = expr_json("&", base, hexv(keep, w))
    val = to_data(v)
    shifted = expr_json("<<", val, hexv(lo)) if lo else val
    inserted = expr_json("&", shifted, hexv(mask(sw) << lo, w))
    ctx.emit("assign", [base, expr_json("|", cleared, inserted)], pos)


def cond_json(v: RV | Const) -> dict[str, Any]:
    """A condition for a BMv2 conditional node (always an ``expression``)."""
    j = to_bool(v)
    if j.get("type") != "expression":
        j = expr_json("==", to_data(v), hexv(1, 1))
    return j
