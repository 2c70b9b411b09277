"""The deparser block: ``packet_out.emit`` calls become the deparser's header order."""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import values as V
from emulator.p4c.frontend.env import source_info
from emulator.p4c.lowering.calls import VOID, args_of
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import lower
from emulator.p4c.lowering.stmts import lower_stmt


def _headers_of(v: V.Value, pos: Pos) -> list[str]:
    if isinstance(v, V.HeaderRef) and v.dyn is None:
        return [v.name]
    if isinstance(v, V.StackRef):
        return [e.name for e in v.elems]
    if isinstance(v, V.UnionStackRef):
        return [m.name for e in v.elems for m in e.members.values()]
    if isinstance(v, V.UnionRef):
        return [m.name for m in v.members.values()]
    if isinstance(v, V.StructRef):
        out: list[str] = []
        for f in v.fields.values():
            if isinstance(f, V.HeaderRef | V.StackRef | V.UnionRef | V.UnionStackRef | V.StructRef):
                out.extend(_headers_of(f, pos))
        return out
    raise CompileError(pos, "emit needs a header, header stack, header union or struct of headers")


def packet_out_method(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> V.Value:
    if name != "emit":
        raise CompileError(pos, f"packet_out.{name} is not supported")
    if ctx.where != "deparser":
        raise CompileError(pos, "emit is only allowed in the deparser")
    (a,) = args_of(call, ["hdr"], pos, "emit")
    order: list[str] = ctx.order  # type: ignore[attr-defined]
    order.extend(_headers_of(lower(a, ctx), a.pos))  # a header emitted twice goes out twice
    return VOID


def lower_deparser(decl: A.ControlDecl, ctx: Ctx) -> dict[str, Any]:
    ctx.where = "deparser"
    ctx.order = []  # type: ignore[attr-defined]
    ctx.prims = []
    for s in decl.body.stmts:
        if isinstance(s, A.If):
            raise CompileError(
                s.pos, "conditional emit is not supported (emit skips invalid headers)"
            )
        lower_stmt(s, ctx)
    return {
        "name": "deparser",
        "id": 0,
        "source_info": source_info(decl.pos, decl.name),
        "order": ctx.order,  # type: ignore[attr-defined]
        "primitives": ctx.prims,
    }
