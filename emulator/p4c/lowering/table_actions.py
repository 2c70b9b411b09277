"""Actions named in tables (actions lists, default actions, entries), lowered to BMv2 actions.

An action's directionless parameters become control-plane data (``runtime_data``); its
``out``/``inout`` parameters are bound in the actions list (``put(hdr.x.a)``). Each distinct
binding is a BMv2 action of its own, all with the action's name, as p4c emits them: one
``put`` listed in two tables bound to two fields writes each table's own field::

    table t_a { actions = { put(hdr.x.a); } }   ─► MyIngress.put (id 4): hdr.x.a = v
    table t_b { actions = { put(hdr.x.b); } }   ─► MyIngress.put (id 5): hdr.x.b = v

Arguments bound to overlapping storage (``setadd(hdr.x.r, hdr.x.r)``) are copied in and out
as P4 says (``lower_action``), with the machinery of sub-control applies and direct calls.
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.ast import expr_text
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import Scope
from emulator.p4c.frontend.values import RV, ObjRef, Value
from emulator.p4c.frontend.writes import may_write, overlap, read_paths
from emulator.p4c.lowering.calls import copy_in, copy_out, copy_out_before_exit
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import const_eval, lower
from emulator.p4c.lowering.restore_args import Copy
from emulator.p4c.lowering.stmts import lower_block
from emulator.p4c.lowering.sub_controls import aliased


def table_action(
    r: A.ActionRef, ctx: Ctx, listed: bool = False
) -> tuple[str, int, list[T.Bits], int]:
    """``(name, BMv2 action id, data types, number of bound arguments)`` of the action
    ``r`` names in a table (``listed``: in its actions list, where only directional
    parameters may be bound); the BMv2 action is lowered on first use of its binding. A data
    type is the parameter's own for bit<W>/int<W>, else bit<W> of its width (an enum's)."""
    env = ctx.env
    a = lower(r.name, ctx)
    if not isinstance(a, ObjRef) or a.kind != "action":
        raise CompileError(r.pos, f"'{expr_text(r.name)}' is not an action")
    decl: A.ActionDecl = a.decl
    types = []
    for p in decl.params:
        if p.direction == "":
            t = resolve_type(env, p.type, const_eval)
            w = T.width_of(t)
            if isinstance(t, T.BoolT):  # as p4c-bm2-ss
                raise CompileError(
                    p.pos, f"{p.name}: action parameters must be bit<> or int<> on this target"
                )
            if w is None:
                raise CompileError(
                    p.pos,
                    f"action parameter '{p.name}' of type {t.show()} cannot be set by the control plane",
                )
            types.append(t if isinstance(t, T.Bits) else T.Bits(w))
    binds = _bound_args(decl, r, ctx)
    if listed and len(r.args) > len(binds):  # p4c: a directionless parameter is the control
        extra = r.args[len(binds)]  # plane's (a `default_action` or an entry gives it)
        name = next((p.name for p in decl.params if p.direction == ""), None)
        if name is None:
            raise CompileError(extra.value.pos, f"action {decl.name}: too many arguments")
        raise CompileError(
            extra.value.pos,
            f"parameter '{name}' of action {decl.name} cannot be bound in the actions list: "
            "it is set by the control plane",
        )
    if not binds:
        if a.name not in env.action_ids:
            lower_action(a, decl, [], ctx)
        aid = env.action_ids[a.name]
    else:
        key = (a.name, repr(binds))
        if key not in env.bound_actions:
            written = _written_bindings(decl, r, a)
            env.bound_actions[key] = lower_action(a, decl, binds, ctx, written)
        aid = env.bound_actions[key]
    return a.name, aid, types, len(binds)


def _bound_args(decl: A.ActionDecl, r: A.ActionRef, ctx: Ctx) -> list[Value]:
    """What ``r`` binds the action's directional parameters to (they come first: P4 puts
    directionless parameters last)."""
    binds: list[Value] = []
    args = list(r.args)
    for p in decl.params:
        if p.direction == "":
            continue
        if not args:
            raise CompileError(
                r.pos,
                f"action {decl.name}: directional parameter '{p.name}' must be bound in the actions list",
            )
        t = resolve_type(ctx.env, p.type, const_eval)
        binds.append(lower(args.pop(0).value, ctx, t))
    return binds


def _written_bindings(decl: A.ActionDecl, r: A.ActionRef, a: ObjRef) -> frozenset[int]:
    """Which directional parameters (by position among them) are bound to storage the
    action's body may write by another way than through its parameters."""
    scope = a.extra if isinstance(a.extra, Scope) else None

    def action(name: str) -> A.ActionDecl | None:
        v = scope.lookup(name) if scope is not None else None
        return v.decl if isinstance(v, ObjRef) and v.kind == "action" else None

    writes = may_write(decl.body, {p.name for p in decl.params}, action)
    return frozenset(
        i
        for i, arg in enumerate(r.args)
        if any(overlap(b, w) for b in read_paths(arg.value) for w in writes)
    )


def lower_action(
    a: ObjRef,
    decl: A.ActionDecl,
    binds: list[Value],
    ctx: Ctx,
    written: frozenset[int] = frozenset(),
) -> int:
    """Add the BMv2 action of ``decl`` with its directional parameters bound to ``binds``;
    returns its id. The parameters are bound straight to their arguments (as p4c's output
    does) unless an ``inout``/``out`` one shares storage with another (``a(hdr.x.r,
    hdr.x.r)``): then those get temporaries, copied in first and written back left to right
    at the end (before an ``exit``), so an ``in`` argument keeps its value from before the
    action, as P4's copy-in/copy-out says."""
    env = ctx.env
    scope = Scope(a.extra if a.extra is not None else env.globals)
    actx = ctx.fresh(scope, "action", ctx.prefix)
    runtime: list[dict[str, Any]] = []
    directional = [p for p in decl.params if p.direction != ""]
    copy = aliased([(p, v, p.pos) for p, v in zip(directional, binds, strict=True)])
    copies: list[Copy] = []
    bound = enumerate(binds)
    for p in decl.params:
        t = resolve_type(env, p.type, const_eval)
        if p.direction != "":
            i, v = next(bound)
            if copy or i in written:
                v = copy_in(actx, p, v, t, p.pos, copies, decl.body, inputs=i in written)
            scope.bind(p.name, v)
            continue
        scope.bind(p.name, RV({"type": "runtime_data", "value": len(runtime)}, t))
        named = A.anno(p.annotations, "name")  # the control plane's name: @name wins
        cp = named[0] if named and isinstance(named[0], str) else p.name
        runtime.append({"name": cp, "bitwidth": T.width_of(t)})
    start = len(actx.prims)
    lower_block(decl.body.stmts, actx)
    body_end = len(actx.prims)
    copy_out(actx, copies, decl.pos)
    copy_out_before_exit(actx, start, body_end, decl)
    return env.add_action(a.name, runtime, actx.prims, decl.pos)
