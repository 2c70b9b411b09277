"""v1model extern functions (mark_to_drop, hash, clone, digest, ...): a table of handlers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.p4c.arch.v1model.checksums import checksum_call
from emulator.p4c.arch.v1model.hash_algorithms import algo_name
from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import source_info
from emulator.p4c.frontend.values import Const, ListV, ObjRef, Value, hexv, to_data
from emulator.p4c.lowering.calls import VOID, args_of, calculation, field_list, in_arg, out_arg
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import coerce, const_eval, lower, scalar
from emulator.p4c.lowering.parser_blocks import verify_call

STD = {"type": "header", "value": "standard_metadata"}

ExternFunction = Callable[[Ctx, A.Call, str, Pos], None]


def _mark_to_drop(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    if not call.args:  # v1model still declares it (deprecated); p4c-bm2-ss refuses it
        raise CompileError(pos, "mark_to_drop expects 1 argument, mark_to_drop(standard_metadata)")
    args_of(call, ["standard_metadata"], pos, name)
    ctx.emit("mark_to_drop", [STD], pos)


def _hash(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    o, a, b, d, m = args_of(call, ["result", "algo", "base", "data", "max"], pos, name)
    dst = out_arg(ctx, o, None)
    algo = algo_name(lower(a, ctx), a.pos)
    inputs = field_list(lower(d, ctx), d.pos, ctx)
    cname = calculation(ctx, algo, inputs, pos)
    base = scalar(lower(b, ctx, dst.type), b.pos)
    mx = scalar(lower(m, ctx, T.Bits(32)), m.pos)
    bt = base.type if isinstance(base.type, T.Bits) else dst.type
    mt = mx.type if isinstance(mx.type, T.Bits) else T.Bits(32)
    params = [
        dst.json,
        to_data(coerce(base, bt, b.pos)),  # type: ignore[arg-type]
        {"type": "calculation", "value": cname},
        to_data(coerce(mx, mt, m.pos)),  # type: ignore[arg-type]
    ]
    ctx.emit("modify_field_with_hash_based_offset", params, pos)


def _random(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    o, lo, hi = args_of(call, ["result", "lo", "hi"], pos, name)
    dst = out_arg(ctx, o, None)
    params = [dst.json, in_arg(ctx, lo, dst.type), in_arg(ctx, hi, dst.type)]
    ctx.emit("modify_field_rng_uniform", params, pos)


def _digest(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    r, d = args_of(call, ["receiver", "data"], pos, name)
    v = lower(d, ctx)
    if call.type_args:
        dt = resolve_type(ctx.env, call.type_args[0], const_eval)
        lname = dt.name if isinstance(dt, T.StructT) else ctx.env.unique("digest")
    else:
        lname = v.type.name if isinstance(v.type, T.StructT) else ctx.env.unique("digest")
    lists = ctx.env.out["learn_lists"]
    existing = [x for x in lists if x["name"] == lname]
    if existing:
        lid = existing[0]["id"]
    else:
        lid = len(lists) + 1
        lists.append(
            {
                "id": lid,
                "name": lname,
                "source_info": source_info(pos, "digest"),
                "elements": field_list(v, d.pos, ctx, False),
            }
        )
    ctx.emit("generate_digest", [in_arg(ctx, r, T.Bits(32)), hexv(lid)], pos)


def _clone(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    if name == "clone3":  # declared (deprecated) in v1model.p4, unknown to p4c-bm2-ss
        raise CompileError(pos, "clone3: unknown extern function; use clone_preserving_field_list")
    extra = ["index"] if len(call.args) == 3 else []
    args = args_of(call, ["type", "session", *extra], pos, name)
    ct = lower(args[0], ctx)
    if not isinstance(ct, Const) or not isinstance(ct.type, T.EnumT) or ct.type.name != "CloneType":
        raise CompileError(args[0].pos, "expected CloneType.I2E or CloneType.E2E")
    op = "clone_ingress_pkt_to_egress" if ct.value == 0 else "clone_egress_pkt_to_egress"
    fl = _field_list_id(ctx, name, args[2] if len(args) > 2 else None, pos)
    ctx.emit(op, [in_arg(ctx, args[1], T.Bits(32)), hexv(fl)], pos)


def _resubmit_recirculate(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    (a,) = args_of(call, ["data"], pos, name)
    fl = _field_list_id(ctx, name, a, pos)
    ctx.emit(name.split("_")[0], [hexv(fl)], pos)


def _truncate(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    (a,) = args_of(call, ["length"], pos, name)
    ctx.emit("truncate", [in_arg(ctx, a, T.Bits(32))], pos)


def _assert_assume(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    (a,) = args_of(call, ["check"], pos, name)
    c = scalar(lower(a, ctx), a.pos)
    if not isinstance(c.type, T.BoolT):
        raise CompileError(a.pos, f"{name} needs a bool argument")
    ctx.emit(name, [to_data(c)], pos)  # BMv2's assert/assume take data (b2d of the check)


def _log_msg(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    args = args_of(call, ["msg", "data"], pos, name, optional=1)
    msg = lower(args[0], ctx)
    if not isinstance(msg, ObjRef) or msg.kind != "string":
        raise CompileError(args[0].pos, "log_msg needs a string literal")
    params: list[Any] = []
    if len(args) > 1:
        data = lower(args[1], ctx)
        items = data.items if isinstance(data, ListV) else [data]
        params = [to_data(scalar(x, args[1].pos)) for x in items]
    vector = {"type": "parameters_vector", "value": params}
    ctx.emit("log_msg", [{"type": "string", "value": msg.name}, vector], pos)


def _verify(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> None:
    verify_call(ctx, call, pos)


EXTERN_FUNCTIONS: dict[str, ExternFunction] = {
    "mark_to_drop": _mark_to_drop,
    "hash": _hash,
    "random": _random,
    "digest": _digest,
    "clone": _clone,
    "clone3": _clone,
    "clone_preserving_field_list": _clone,
    "resubmit": _resubmit_recirculate,
    "recirculate": _resubmit_recirculate,
    "resubmit_preserving_field_list": _resubmit_recirculate,
    "recirculate_preserving_field_list": _resubmit_recirculate,
    "truncate": _truncate,
    "assert": _assert_assume,
    "assume": _assert_assume,
    "log_msg": _log_msg,
    "verify": _verify,
    "verify_checksum": checksum_call,
    "update_checksum": checksum_call,
    "verify_checksum_with_payload": checksum_call,
    "update_checksum_with_payload": checksum_call,
}


def extern_function(
    ctx: Ctx, call: A.Call, name: str, decls: list[A.ExternDecl], pos: Pos
) -> Value:
    """Lower a call of the extern function ``name`` through EXTERN_FUNCTIONS."""
    handler = EXTERN_FUNCTIONS.get(name)
    if handler is None:
        raise CompileError(pos, f"extern function '{name}' is not supported on this target")
    handler(ctx, call, name, pos)
    return VOID


def _field_list_id(ctx: Ctx, name: str, arg: A.Expr | None, pos: Pos) -> int:
    """JSON field list id, as p4c assigns them (sequential from 1).

    ``*_preserving_field_list(i)`` uses the list ``field_list<i>`` of the user metadata fields
    tagged ``@field_list(i)``; plain ``clone`` gets a new empty list; the deprecated
    ``resubmit``/``recirculate`` a list built from their data argument.
    """
    env = ctx.env
    fls = env.out["field_lists"]

    def new(lname: str, elements: list[Any]) -> int:
        fid = len(fls) + 1
        fls.append(
            {"id": fid, "name": lname, "source_info": source_info(pos, name), "elements": elements}
        )
        return fid

    if arg is None:
        return new(env.unique("fl"), [])
    v = lower(arg, ctx)
    if name.endswith("preserving_field_list"):
        if not isinstance(v, Const):
            raise CompileError(arg.pos, "field list index must be a constant")
        lname = f"field_list{v.value}"
        for f in fls:
            if f["name"] == lname:
                return int(f["id"])
        return new(lname, list(getattr(env, "field_list_members", {}).get(v.value, [])))
    return new(env.unique("fl"), field_list(v, arg.pos, ctx, False))
