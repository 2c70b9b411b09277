"""v1model's checksum controls: verify_checksum / update_checksum (with_payload too)."""

from __future__ import annotations

from emulator.p4c.arch.v1model.hash_algorithms import algo_name
from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.env import source_info
from emulator.p4c.frontend.values import RV, Const
from emulator.p4c.lowering.calls import args_of, calculation, field_list
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import lower, scalar
from emulator.p4c.lowering.stmts import cond_json, lower_stmt


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
