"""Control blocks -> BMv2 pipelines: a forward pass lowers statements to a small IR, a
backward pass links tables and conditionals (continuation style).

    apply { a = 1; if (c) { t.apply(); } b(); }
      IR:   [prims(a=1), if(c, [apply t], []), prims(b())]
      JSON: tbl_act -> node_0 --true--> t ---------> tbl_act_0 -> null
                           \\--false------------------^
"""

from __future__ import annotations

import contextlib
from typing import Any

from emulator.p4c.diagnostics import BackendLimit, CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.env import Scope, source_info
from emulator.p4c.frontend.values import RV, Const, ObjRef, to_data
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.effect_order import effect_order
from emulator.p4c.lowering.exprs import lower, scalar
from emulator.p4c.lowering.stmts import cond_json, exits, lower_stmt
from emulator.p4c.lowering.sub_controls import (
    ApplyArgs,
    bind_apply_args,
    bind_ctor_args,
    sub_block,
    table_exits,
    tables_in,
    with_copy_out,
)
from emulator.p4c.lowering.table_actions import lower_action, table_action
from emulator.p4c.lowering.tables import TableBuilder, cp_name, simple_key
from emulator.p4c.lowering.value_switch import value_switch


class ControlLowering:
    """Lowers one top-level control (with inlined sub-controls) into a pipeline object."""

    def __init__(self, ctx: Ctx, pipeline_name: str) -> None:
        self.ctx = ctx
        self.env = ctx.env
        self.pipeline: dict[str, Any] = {
            "name": pipeline_name,
            "id": 0,
            "source_info": None,
            "init_table": None,
            "tables": [],
            "action_profiles": [],
            "conditionals": [],
        }
        self.applied: set[str] = set()
        #: table applied by a plain apply -> its next_tables (one node may serve two branches)
        self.built: dict[str, dict[str, str | None]] = {}
        self.builders: dict[str, TableBuilder] = {}
        self.key_temps: dict[str, dict[int, RV]] = {}
        self.implicit: dict[str, ObjRef] = {}  # controls applied by type name

    # -------------------------------------------------------------- setup
    def setup_locals(self, decl: A.ControlDecl, ctx: Ctx, prefix: str) -> None:
        for loc in decl.locals:
            if isinstance(loc, A.ActionDecl):
                ctx.scope.bind(
                    loc.name,
                    ObjRef(
                        "action", cp_name(prefix, loc.name, loc.annotations), loc, T.VOID, ctx.scope
                    ),
                )
            elif isinstance(loc, A.TableDecl):
                ctx.scope.bind(
                    loc.name,
                    ObjRef("table", cp_name(prefix, loc.name, loc.annotations), loc, T.VOID, ctx),
                )
            elif isinstance(loc, A.Instance):
                obj = ctx.architecture(loc.pos).declare_instance(
                    ctx, loc, cp_name(prefix, loc.name, loc.annotations)
                )
                if obj.kind == "subblock":
                    obj.extra["decl_ctx"] = ctx  # where its constructor arguments are lowered
                ctx.scope.bind(loc.name, obj)
            else:
                lower_stmt(loc, ctx)

    def lower(self, decl: A.ControlDecl, ctx: Ctx) -> dict[str, Any]:
        self.pipeline["source_info"] = source_info(decl.pos, decl.name)
        ctx.prims = []
        self.setup_locals(decl, ctx, ctx.prefix)
        ir: list[Any] = []
        if ctx.prims:
            ir.append(("prims", ctx.prims, decl.pos))
        ir.extend(self.forward(decl.body.stmts, ctx))
        self._name_profiles(ir)
        self.pipeline["init_table"] = self.build(ir, None, None)
        self._check_unused_actions(decl, ctx)
        return self.pipeline

    def _name_profiles(self, ir: list[Any]) -> None:
        """Name the profiles written in tables' ``implementation`` action_profile_0, 1, ...
        in apply order, as p4c does (the backward build meets the tables last to first)."""
        names = self.env.anonymous_profile_names
        for t in tables_in(ir):
            ip = t.decl.prop("implementation")
            e = ip.value if ip is not None else None
            if (
                isinstance(e, A.Call)
                and isinstance(e.func, A.Name)
                and e.func.name in ("action_profile", "action_selector")
                and t.name not in names
            ):
                names[t.name] = f"action_profile_{len(names)}"

    def _check_unused_actions(self, decl: A.ControlDecl, ctx: Ctx) -> None:
        """Type-check actions no table uses (p4c checks every declaration). One holding code
        p4c's back end cannot compile (``x % 7``) is left out: p4c drops unused actions
        before its back end looks at them."""
        for loc in decl.locals:
            if isinstance(loc, A.ActionDecl) and all(p.direction == "" for p in loc.params):
                a = ctx.scope.lookup(loc.name)
                if (
                    isinstance(a, ObjRef)
                    and a.kind == "action"
                    and a.name not in self.env.action_ids
                ):
                    with contextlib.suppress(BackendLimit):
                        lower_action(a, loc, [], ctx)

    # -------------------------------------------------------------- forward pass
    def forward(self, stmts: tuple[A.Stmt, ...] | list[A.Stmt], ctx: Ctx) -> list[Any]:
        ir: list[Any] = []
        run: list[dict[str, Any]] = []
        run_pos: list[Pos] = []

        def flush() -> None:
            nonlocal run
            if run:
                ir.append(("prims", run, run_pos[0]))
                run = []
                run_pos.clear()

        hoister = effect_order(ctx, lambda e: self._is_table(e, ctx))
        for s in stmts:
            table = self._applied_table(s, ctx)
            hoisted = hoister.statement(s) if table is None else None
            if hoisted is not None:
                flush()
                ir.extend(self.forward(hoisted, ctx))
            elif table is not None:
                flush()
                ir.extend(self._key_temps(table, s.pos))
                ir.append(("apply", table, s.pos))
            elif isinstance(s, A.CallStmt) and (sub := self._sub_apply(s.call, ctx)) is not None:
                flush()
                ir.extend(self._sub_ir(*sub, s.pos))
            elif isinstance(s, A.If):
                flush()
                ir.extend(self._if(s, ctx))
            elif isinstance(s, A.Switch):
                flush()
                sw = self._switch(s, ctx)
                if isinstance(sw, list):
                    ir.extend(sw)
                else:
                    ir.append(sw)
            elif isinstance(s, A.Block):
                flush()
                inner = ctx.child()
                ir.extend(self.forward(s.stmts, inner))
            elif isinstance(s, A.Exit):
                flush()
                ir.append(("exit",))
                return ir
            elif isinstance(s, A.Return):
                if s.value is not None:
                    raise CompileError(s.pos, "return with a value in a control")
                flush()
                ir.append(("return",))
                return ir
            else:
                ctx.prims = run
                before = len(run)
                lower_stmt(s, ctx)
                if run and not run_pos:
                    run_pos.append(s.pos)
                if exits(run, before, s.pos):  # a call of an exiting action: nothing after
                    flush()  # it runs (BMv2 would run the rest of its synthesized action)
                    ir.append(("exit",))
                    return ir
        flush()
        return ir

    def _is_table(self, e: A.Expr, ctx: Ctx) -> bool:
        """Whether ``e`` names a table (for ``e.apply()`` inside expressions)."""
        if not isinstance(e, A.Name | A.Member):
            return False
        try:
            v = lower(e, ctx)
        except CompileError:
            return False
        return isinstance(v, ObjRef) and v.kind == "table"

    def _table_of(self, e: A.Expr, ctx: Ctx) -> ObjRef | None:
        """``t.apply()`` -> t (as ObjRef), else None."""
        if isinstance(e, A.Call) and isinstance(e.func, A.Member) and e.func.name == "apply":
            base = sub_block(e.func.expr, ctx, self.implicit)
            if isinstance(base, ObjRef) and base.kind == "table":
                if e.args:
                    raise CompileError(e.pos, "table.apply() takes no arguments")
                return base
        return None

    def _key_temps(self, t: ObjRef, pos: Pos) -> list[Any]:
        """Key expressions BMv2 cannot match on (constants, arithmetic, slices: the control
        plane gives a slice's own value) are computed into temporaries before the table, as
        p4c-bm2-ss does; returns the IR computing them."""
        decl: A.TableDecl = t.decl
        kp = decl.prop("key")
        tctx: Ctx = t.extra
        saved = tctx.prims
        tctx.prims = []
        temps: dict[int, RV] = {}
        for k in kp.value if kp else ():  # type: ignore[union-attr,attr-defined]
            before = len(tctx.prims)
            v = scalar(lower(k.expr, tctx), k.pos)
            stacked = not _is_valid_call(k.expr) and any(
                isinstance(n, A.Index) for n in A.nodes(k.expr)
            )
            if isinstance(v, RV) and simple_key(v) and len(tctx.prims) == before and not stacked:
                continue  # (a stack element's field goes through a temporary too, as p4c:
                # BMv2 keys a field of an invalid header as 0, not a copied one)
            if isinstance(v, Const) and T.width_of(v.type) is None:
                raise CompileError(k.pos, "a constant table key needs a width (e.g. 8w5)")
            # a constant key is matched like an expression key, as p4c does (with a warning)
            kt = v.type if not isinstance(v.type, T.BoolT) else T.Bits(1)
            tmp = tctx.temp(kt, k.pos, f"{t.name.split('.')[-1]}_key")
            tctx.emit("assign", [tmp.json, to_data(v)], k.pos)
            temps[id(k)] = RV(tmp.json, kt)
        prims = tctx.prims
        tctx.prims = saved
        self.key_temps[t.name] = temps
        return [("prims", prims, pos)] if prims else []

    def _applied_table(self, s: A.Stmt, ctx: Ctx) -> ObjRef | None:
        return self._table_of(s.call, ctx) if isinstance(s, A.CallStmt) else None

    def _sub_ir(self, decl: A.ControlDecl, sctx: Ctx, args: ApplyArgs, pos: Pos) -> list[Any]:
        """IR of a sub-control's application: copy-in, body, copy-out (also before an exit)."""
        body = self.forward(decl.body.stmts, sctx)
        pre = [("prims", args.copy_in, pos)] if args.copy_in else []
        if not args.copies:
            return [*pre, ("sub", body, None, pos)]
        for t in tables_in(body):
            if table_exits(t):
                raise CompileError(
                    pos,
                    f"control {decl.name} is applied with aliased arguments (copied in and "
                    f"out) and its table {t.name} has an action that exits: not supported",
                )
        body = with_copy_out(body, lambda: args.copy_out(sctx), pos)
        return [*pre, ("sub", body, args.copy_out(sctx), pos)]

    def _sub_apply(self, call: A.Call, ctx: Ctx) -> tuple[A.ControlDecl, Ctx, ApplyArgs] | None:
        if not (isinstance(call.func, A.Member) and call.func.name == "apply"):
            return None
        base = sub_block(call.func.expr, ctx, self.implicit)
        if not (isinstance(base, ObjRef) and base.kind == "subblock"):
            return None
        decl = base.decl
        if not isinstance(decl, A.ControlDecl):
            raise CompileError(call.pos, "only controls can be applied here")
        if len(call.args) != len(decl.params):
            raise CompileError(
                call.pos,
                f"control {decl.name} expects {len(decl.params)} arguments, got {len(call.args)}",
            )
        sctx = base.extra.get("ctx")
        first = sctx is None
        if sctx is None:
            sctx = ctx.fresh(Scope(self.env.globals), "control", base.name)
            base.extra["ctx"] = sctx
            bind_ctor_args(base, decl, sctx, call.pos)
        args = bind_apply_args(ctx, sctx, decl, call)
        if first:
            sctx.prims = []
            self.setup_locals(decl, sctx, base.name)
            if sctx.prims:
                raise CompileError(decl.pos, "initialized locals in sub-controls are not supported")
        return decl, sctx, args

    def _if(self, s: A.If, ctx: Ctx) -> list[Any]:
        cond, negate = s.cond, False
        while isinstance(cond, A.Unary) and cond.op == "!":
            cond, negate = cond.expr, not negate
        if isinstance(cond, A.Member) and cond.name in ("hit", "miss"):
            t = self._table_of(cond.expr, ctx)
            if t is not None:
                hit = (cond.name == "hit") != negate
                then_ir = self.forward(_stmts(s.then), ctx.child())
                else_ir = self.forward(_stmts(s.other), ctx.child()) if s.other else []
                return [
                    *self._key_temps(t, s.pos),
                    ("hitmiss", t, then_ir if hit else else_ir, else_ir if hit else then_ir, s.pos),
                ]
        saved = ctx.prims
        ctx.prims = []
        c = scalar(lower(s.cond, ctx), s.cond.pos)
        # calls in the condition (functions, register reads) compute temporaries first
        pre = [("prims", ctx.prims, s.cond.pos)] if ctx.prims else []
        ctx.prims = saved
        if not isinstance(c.type, T.BoolT):
            raise CompileError(s.cond.pos, f"condition must be bool, found {c.type.show()}")
        if isinstance(c, Const):
            branch = s.then if c.value else s.other
            return pre + (self.forward(_stmts(branch), ctx.child()) if branch else [])
        then_ir = self.forward(_stmts(s.then), ctx.child())
        else_ir = self.forward(_stmts(s.other), ctx.child()) if s.other else []
        return [*pre, ("if", cond_json(c), then_ir, else_ir, s.pos)]

    def _switch(self, s: A.Switch, ctx: Ctx) -> Any:
        if not (isinstance(s.expr, A.Member) and s.expr.name == "action_run"):
            return value_switch(s, ctx, self.forward)
        t = self._table_of(s.expr.expr, ctx)
        if t is None:
            raise CompileError(s.expr.pos, "switch needs table.apply().action_run")
        cases: list[tuple[list[str] | None, list[Any]]] = []
        labels: list[str] = []
        for c in s.cases:
            if isinstance(c.label, A.Default):
                lab = None
            else:
                a = lower(c.label, ctx)
                if not isinstance(a, ObjRef) or a.kind != "action":
                    raise CompileError(c.pos, "switch labels must be action names")
                labels.append(a.name)
                lab = a.name
            if c.body is None:
                if lab is None:
                    raise CompileError(c.pos, "default label needs a body")
                continue
            names = labels if lab is not None else None
            cases.append(
                (
                    list(names) if names is not None else None,
                    self.forward(c.body.stmts, ctx.child()),
                )
            )
            labels = []
        return [*self._key_temps(t, s.pos), ("switch", t, cases, s.pos)]

    # -------------------------------------------------------------- backward pass
    def build(self, ir: list[Any], nxt: str | None, ret: str | None) -> str | None:
        for item in reversed(ir):
            kind = item[0]
            if kind == "prims":
                nxt = self._action_table(item[1], item[2], nxt)
            elif kind == "apply":
                again = self.built.get(item[1].name)
                if again is not None and set(again.values()) == {nxt}:
                    nxt = item[1].name  # applied again where it goes on the same way (p4c too)
                    continue
                tb = self._table(item[1], item[2])
                tb.json["base_default_next"] = nxt
                tb.json["next_tables"] = {a: nxt for a in tb.action_names}
                self.built[tb.name] = tb.json["next_tables"]
                nxt = tb.name
            elif kind == "hitmiss":
                _, t, hit_ir, miss_ir, pos = item
                h = self.build(hit_ir, nxt, ret)
                m = self.build(miss_ir, nxt, ret)
                tb = self._table(t, pos)
                tb.json["base_default_next"] = nxt
                tb.json["next_tables"] = {"__HIT__": h, "__MISS__": m}
                nxt = tb.name
            elif kind == "switch":
                _, t, cases, pos = item
                tb = self._table(t, pos)
                table_next = {a: nxt for a in tb.action_names}
                default_next = nxt
                for names, body in cases:
                    entry = self.build(body, nxt, ret)
                    if names is None:
                        default_next = entry
                        continue
                    for n in names:
                        if n not in table_next:
                            raise CompileError(
                                pos, f"action '{n}' is not an action of table {tb.name}"
                            )
                        table_next[n] = entry
                labelled = {n for names, _ in cases if names for n in names}
                for a in tb.action_names:
                    if a not in labelled:
                        table_next[a] = default_next
                tb.json["base_default_next"] = nxt
                tb.json["next_tables"] = table_next
                nxt = tb.name
            elif kind == "if":
                _, cond, then_ir, else_ir, pos = item
                tn = self.build(then_ir, nxt, ret)
                fn = self.build(else_ir, nxt, ret)
                name = f"node_{self.env.cond_id + 2}"
                self.pipeline["conditionals"].append(
                    {
                        "name": name,
                        "id": self.env.cond_id,
                        "source_info": source_info(pos, "if"),
                        "expression": cond,
                        "true_next": tn,
                        "false_next": fn,
                    }
                )
                self.env.cond_id += 1
                nxt = name
            elif kind == "sub":  # a return in the callee goes to its copy-out, if any
                after = self._action_table(item[2], item[3], nxt) if item[2] else nxt
                nxt = self.build(item[1], after, after)
            elif kind == "exit":
                nxt = None
            elif kind == "return":
                nxt = ret
        return nxt

    def _action_table(self, prims: list[dict[str, Any]], pos: Pos, nxt: str | None) -> str | None:
        aname = self.env.unique("act")
        aid = self.env.add_action(aname, [], prims)
        tname = self.env.unique(f"tbl_{aname}")
        self.pipeline["tables"].append(
            {
                "name": tname, "id": self.env.table_id, "source_info": source_info(pos, ""),
                "key": [], "match_type": "exact", "type": "simple", "max_size": 1024,
                "with_counters": False, "support_timeout": False, "direct_meters": None,
                "action_ids": [aid], "actions": [aname], "base_default_next": nxt,
                "next_tables": {aname: nxt},
                "default_entry": {"action_id": aid, "action_const": True, "action_data": [], "action_entry_const": True},
            }
        )  # fmt: skip
        self.env.table_id += 1
        return tname

    def _table(self, t: ObjRef, pos: Pos) -> TableBuilder:
        if t.name in self.applied:
            raise CompileError(
                pos,
                f"table {t.name} is applied more than once, going on differently (BMv2: one "
                "successor per table)",
            )
        self.applied.add(t.name)
        tctx: Ctx = t.extra
        tb = TableBuilder(tctx, t.decl, t.name, self.pipeline)
        tb.key_temps = self.key_temps.get(t.name, {})
        tb.build(
            lambda r, data=False: self.emit_action(r, tctx, data),
            lambda e, tn: self.resolve_instance(e, tn, tctx),
        )
        self.pipeline["tables"].append(tb.json)
        return tb

    # -------------------------------------------------------------- actions in tables
    def emit_action(self, r: A.ActionRef, ctx: Ctx, data: bool = False) -> Any:
        """``(name, BMv2 action id, data widths, number of bound out/inout arguments)`` of
        an action in a table's actions list, default action or entry; lowered on first use."""
        return table_action(r, ctx, listed=not data)

    def resolve_instance(self, e: Any, table_name: str, ctx: Ctx) -> ObjRef:
        if (
            isinstance(e, A.Call)
            and isinstance(e.func, A.Name)
            and e.func.name in self.env.type_decls
        ):
            inst = A.Instance(
                e.pos,
                A.TypeRef(e.pos, "name", name=e.func.name, args=e.type_args),
                e.args,
                table_name,
            )
            name = table_name
            if e.func.name in ("action_profile", "action_selector"):  # p4c's names for them
                names = self.env.anonymous_profile_names  # (named in apply order first)
                name = names.setdefault(table_name, f"action_profile_{len(names)}")
            if e.func.name == "action_selector":
                self.env.anonymous_selectors.append(table_name)
            return ctx.architecture(e.pos).declare_instance(ctx, inst, name)
        v = lower(e, ctx)
        if not isinstance(v, ObjRef) or v.kind != "extern":
            raise CompileError(e.pos, "expected an extern instance")
        return v


def _is_valid_call(e: A.Expr) -> bool:
    """``x.isValid()``: matched as the header's validity bit, a stack element's too."""
    return isinstance(e, A.Call) and isinstance(e.func, A.Member) and e.func.name == "isValid"


def _stmts(s: A.Stmt | None) -> list[A.Stmt]:
    if s is None:
        return []
    return list(s.stmts) if isinstance(s, A.Block) else [s]
