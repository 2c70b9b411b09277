"""Deparser (emit order) and the checksum controls (verify_checksum / update_checksum)."""

from __future__ import annotations

from typing import Any

from emulator.p4c import ast as A
from emulator.p4c import types as T
from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.env import source_info
from emulator.p4c.exprs import Ctx, lower, scalar
from emulator.p4c.externs import VOID, algo_name, args_of, calculation, field_list
from emulator.p4c.stmts import cond_json, lower_stmt
from emulator.p4c.values import RV, Const, HeaderRef, StackRef, StructRef, UnionRef, Value


def _headers_of(v: Value, pos: Pos) -> list[str]:
    if isinstance(v, HeaderRef) and v.dyn is None:
        return [v.name]
    if isinstance(v, StackRef):
        return [e.name for e in v.elems]
    if isinstance(v, UnionRef):
        return [m.name for m in v.members.values()]
    if isinstance(v, StructRef):
        out: list[str] = []
        for f in v.fields.values():
            if isinstance(f, HeaderRef | StackRef | UnionRef | StructRef):
                out.extend(_headers_of(f, pos))
        return out
    raise CompileError(pos, "emit needs a header, header stack, header union or struct of headers")


def packet_out_method(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> Value:
    if name != "emit":
        raise CompileError(pos, f"packet_out.{name} is not supported")
    if ctx.where != "deparser":
        raise CompileError(pos, "emit is only allowed in the deparser")
    (a,) = args_of(call, ["hdr"], pos, "emit")
    order: list[str] = ctx.order  # type: ignore[attr-defined]
    for h in _headers_of(lower(a, ctx), a.pos):
        if h not in order:
            order.append(h)
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


def lower_checksum_control(decl: A.ControlDecl, ctx: Ctx, verify: bool) -> None:
    ctx.where = "verify_checksum" if verify else "compute_checksum"
    for s in decl.body.stmts:
        if isinstance(s, A.CallStmt | A.Empty | A.Block):
            lower_stmt(s, ctx)
        else:
            raise CompileError(
                s.pos,
                "only verify_checksum/update_checksum calls are supported in checksum controls",
            )


def checksum_call(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    verify = name.startswith("verify")
    want = "verify_checksum" if verify else "compute_checksum"
    if ctx.where != want:
        raise CompileError(
            pos,
            f"{name} is only allowed in the {'VerifyChecksum' if verify else 'ComputeChecksum'} control",
        )
    c, d, k, a = args_of(call, ["condition", "data", "checksum", "algo"], pos, name)
    cond = scalar(lower(c, ctx), c.pos)
    if not isinstance(cond.type, T.BoolT):
        raise CompileError(c.pos, f"{name}: condition must be bool")
    if isinstance(cond, Const) and not cond.value:
        return
    target = lower(k, ctx)
    if not isinstance(target, RV) or target.json.get("type") != "field":
        raise CompileError(k.pos, f"{name}: checksum must be a header field")
    inputs = field_list(lower(d, ctx), d.pos, ctx)
    if name.endswith("with_payload"):
        inputs.append({"type": "payload", "value": None})
    algo = algo_name(lower(a, ctx), a.pos)
    cname = calculation(ctx, algo, inputs, pos)
    cks = ctx.env.out["checksums"]
    cks.append(
        {
            "name": ctx.env.unique("cksum"),
            "id": len(cks),
            "source_info": source_info(pos, name),
            "target": target.json["value"],
            "type": "generic",
            "calculation": cname,
            "verify": verify,
            "update": not verify,
            "if_cond": None if isinstance(cond, Const) else cond_json(cond),
        }
    )
