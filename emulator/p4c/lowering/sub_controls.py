"""Sub-controls: what ``c.apply(args)`` names (an instance, a constructor argument, or a
control type applied by name), P4's copy-in/copy-out of its arguments, and the IR that
writes ``inout``/``out`` arguments back, also before an ``exit`` inside the callee.

Arguments are bound directly (as p4c's output does) unless two of them share storage with
one of them ``inout``/``out`` (``c.apply(x, x)``, ``c.apply(hdr, hdr.eth)``): then every
``inout``/``out`` argument gets storage of its own, copied in (``inout``) before the body and
written back left to right after it, so the callee sees P4's values. An ``in`` argument that
is an expression is evaluated once, into a temporary, before the body; the headers of an
``out`` argument start invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend import values as V
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.values import RV, HeaderRef, ListV, ObjRef, Value
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import coerce, const_eval, lower
from emulator.p4c.lowering.restore_args import invalidate_out
from emulator.p4c.lowering.stmts import assign_value, exit_in
from emulator.p4c.lowering.tables import cp_name

Prims = list[dict[str, Any]]
ANY = ("*", None)  # storage chosen at run time (a stack element by a computed index)


@dataclass
class ApplyArgs:
    """What binding a sub-control's ``apply`` arguments produced."""

    copy_in: Prims = field(default_factory=list)  # temporaries and copies, before the body
    copies: list[tuple[Value, Value, Pos]] = field(default_factory=list)  # (arg, storage)

    def copy_out(self, ctx: Ctx) -> Prims:
        """Fresh primitives writing the copies back to the arguments, left to right."""
        out = ctx.fresh(ctx.scope, ctx.where, ctx.prefix)
        for arg, storage, pos in self.copies:
            assign_value(arg, storage, out, pos)
        return out.prims


def bind_apply_args(ctx: Ctx, sctx: Ctx, decl: A.ControlDecl, call: A.Call) -> ApplyArgs:
    """Bind ``decl``'s parameters in ``sctx`` to the arguments of ``call`` (lowered in
    ``ctx``), copying them when they alias (module docstring)."""
    saved = ctx.prims
    ctx.prims = []
    bound: list[tuple[A.Param, Value, Pos]] = []
    for p, a in zip(decl.params, call.args, strict=True):
        t = resolve_type(ctx.env, p.type, const_eval)
        v = lower(a.value, ctx, t)
        if p.direction in ("", "in") and isinstance(v, RV) and not v.lvalue:
            tmp = ctx.temp(t, a.value.pos, p.name)
            assign_value(tmp, v, ctx, a.value.pos)
            v = RV(tmp.json, t)
        bound.append((p, v, a.value.pos))
    res = ApplyArgs()
    copy = aliased(bound)
    for p, v, pos in bound:
        if copy and p.direction in ("inout", "out") and not isinstance(v, ListV):
            t = resolve_type(ctx.env, p.type, const_eval)
            storage = _storage_for(ctx, p.name, v, t, pos)
            if p.direction == "inout":
                assign_value(storage, v, ctx, pos)
            res.copies.append((v, storage, pos))
            v = storage
        elif p.direction == "out" and isinstance(v, RV) and v.slice_of is None:
            # as p4c: the callee writes a fresh temporary (0 until written), copied back,
            # so a path that leaves it alone writes 0 (P4 leaves the value unspecified)
            storage = ctx.temp(resolve_type(ctx.env, p.type, const_eval), pos, p.name)
            res.copies.append((v, storage, pos))
            v = storage
        if p.direction == "out":
            invalidate_out(ctx, v, pos)
        sctx.scope.bind(p.name, v)
    res.copy_in = ctx.prims
    ctx.prims = saved
    return res


def _storage_for(ctx: Ctx, name: str, v: Value, t: Any, pos: Pos) -> Value:
    if isinstance(v, RV):
        return ctx.temp(t, pos, name)
    if isinstance(v, HeaderRef | V.StructRef | V.StackRef | V.UnionRef):
        return ctx.env.allocate(ctx.env.unique(f"{name}_copy"), t, pos)
    raise CompileError(pos, f"cannot copy an argument of type {v.type.show()}")


def aliased(bound: list[tuple[A.Param, Value, Pos]]) -> bool:
    """Whether an ``inout``/``out`` argument shares storage with another argument."""
    spans = [_fields(v) for _, v, _ in bound]
    for i, (p, _, _) in enumerate(bound):
        if p.direction not in ("inout", "out"):
            continue
        if any(j != i and _overlap(spans[i], spans[j]) for j in range(len(bound))):
            return True
    return False


def _overlap(a: set[tuple[str, str | None]], b: set[tuple[str, str | None]]) -> bool:
    if not a or not b:
        return False
    if ANY in a or ANY in b:
        return True
    for h, f in a:
        for h2, f2 in b:
            if h == h2 and (f is None or f2 is None or f == f2):
                return True
    return False


def _fields(v: Value) -> set[tuple[str, str | None]]:
    """The storage ``v`` occupies: (header instance, field or None for all of it)."""
    if isinstance(v, RV):
        return set(_json_fields(v.json))
    if isinstance(v, HeaderRef):
        return {ANY} if v.dyn is not None else {(v.name, None)}
    if isinstance(v, V.StackRef):
        return {(e.name, None) for e in v.elems} | {(v.name, None)}
    if isinstance(v, V.UnionRef):
        return {(m.name, None) for m in v.members.values()} | {(v.name, None)}
    if isinstance(v, V.StructRef | ListV):
        items = v.fields.values() if isinstance(v, V.StructRef) else v.items
        return {x for item in items for x in _fields(item)}
    return set()


def _json_fields(j: Any) -> list[tuple[str, str | None]]:
    if isinstance(j, dict):
        if j.get("type") == "field":
            return [(j["value"][0], j["value"][1])]
        if j.get("type") in ("header", "stack_field", "header_stack"):
            return [ANY]
        return [x for val in j.values() for x in _json_fields(val)]
    if isinstance(j, list):
        return [x for val in j for x in _json_fields(val)]
    return []


def with_copy_out(ir: list[Any], make: Callable[[], Prims], pos: Pos) -> list[Any]:
    """``ir`` with the copy-out put before every ``exit`` in it (nested blocks included):
    the callee's ``inout``/``out`` arguments are written back when it exits."""
    out: list[Any] = []
    for item in ir:
        kind = item[0]
        if kind == "exit":
            out.append(("prims", make(), pos))
            out.append(item)
        elif kind == "if":
            _, cond, then_ir, else_ir, p = item
            t, e = with_copy_out(then_ir, make, pos), with_copy_out(else_ir, make, pos)
            out.append(("if", cond, t, e, p))
        elif kind == "hitmiss":
            _, t, hit_ir, miss_ir, p = item
            h, m = with_copy_out(hit_ir, make, pos), with_copy_out(miss_ir, make, pos)
            out.append(("hitmiss", t, h, m, p))
        elif kind == "switch":
            _, t, cases, p = item
            out.append(("switch", t, [(n, with_copy_out(b, make, pos)) for n, b in cases], p))
        elif kind == "sub":
            out.append(("sub", with_copy_out(item[1], make, pos), *item[2:]))
        else:
            out.append(item)
    return out


def tables_in(ir: list[Any]) -> list[Any]:
    """The tables (ObjRefs) applied anywhere in ``ir``."""
    found: list[Any] = []
    for item in ir:
        kind = item[0]
        if kind in ("apply", "hitmiss", "switch"):
            found.append(item[1])
        if kind in ("if", "hitmiss"):
            found += tables_in(item[2]) + tables_in(item[3])
        elif kind == "switch":
            found += [t for _, body in item[2] for t in tables_in(body)]
        elif kind == "sub":
            found += tables_in(item[1])
    return found


def table_exits(t: ObjRef) -> bool:
    """Whether an action of table ``t`` contains ``exit``."""
    ap = t.decl.prop("actions")
    for r in ap.value if ap else ():
        a = lower(r.name, t.extra)
        if isinstance(a, ObjRef) and a.kind == "action" and exit_in(a.decl.body):
            return True
    return False


def sub_block(e: A.Expr, ctx: Ctx, implicit: dict[str, ObjRef]) -> Value:
    """What ``e`` in ``e.apply(...)`` names; a control's type name gets an instance of that
    name, one per name in ``implicit`` (as p4c instantiates ``C.apply()`` implicitly)."""
    if isinstance(e, A.Name) and ctx.scope.lookup(e.name) is None:
        decl = ctx.env.type_decls.get(e.name)
        if isinstance(decl, A.ControlDecl):
            name = cp_name(ctx.prefix, e.name, ())
            if name not in implicit:
                implicit[name] = ObjRef(
                    "subblock", name, decl, T.NamedT("block", e.name), {"args": ()}
                )
            return implicit[name]
    return lower(e, ctx)


def bind_ctor_args(base: ObjRef, decl: A.ControlDecl | A.ParserDecl, sctx: Ctx, pos: Pos) -> None:
    """Constructor parameters (``control C2(...)(my_control_type c)``, ``parser
    P(...)(bit<8> inc)``) are bound to the instance's arguments, lowered where the instance
    was declared; a number takes the parameter's type (``C(-7)`` for ``int<8> s``: ``s >> 1``
    shifts arithmetically)."""
    kind = "control" if isinstance(decl, A.ControlDecl) else "parser"
    args = base.extra.get("args", ())
    if len(args) != len(decl.ctor_params):
        raise CompileError(
            pos,
            f"{kind} {decl.name} expects {len(decl.ctor_params)} constructor arguments, "
            f"got {len(args)}",
        )
    where = base.extra.get("decl_ctx")
    for p, a in zip(decl.ctor_params, args, strict=True):
        if where is None:
            raise CompileError(a.value.pos, "constructor arguments are not supported here")
        t = _scalar_type(p, sctx)
        v = lower(a.value, where, t)
        if t is not None and isinstance(v, V.Const):
            v = coerce(v, t, a.value.pos, "constructor argument")
        sctx.scope.bind(p.name, v)


def _scalar_type(p: A.Param, ctx: Ctx) -> T.Type | None:
    """A constructor parameter's type when it is bit<W>, int<W> or bool (else None: a
    control or extern type)."""
    try:
        t = resolve_type(ctx.env, p.type, const_eval)
    except CompileError:
        return None
    return t if isinstance(t, T.Bits | T.BoolT) else None
