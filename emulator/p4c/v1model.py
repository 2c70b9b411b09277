"""v1model externs: instances (register, counter, meter, ...) and extern function calls."""

from __future__ import annotations

from typing import Any

from emulator.p4c import ast as A
from emulator.p4c import types as T
from emulator.p4c.decls import resolve_type
from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.env import source_info
from emulator.p4c.exprs import Ctx, coerce, const_eval, lower, scalar
from emulator.p4c.externs import VOID, algo_name, args_of, calculation, field_list
from emulator.p4c.values import RV, Const, ObjRef, Value, hexv, to_data

STD = {"type": "header", "value": "standard_metadata"}


# ------------------------------------------------------------------ instances
def declare_instance(ctx: Ctx, inst: A.Instance, cp_name: str) -> ObjRef:
    """Emit the JSON object for an extern instance and return its reference."""
    env = ctx.env
    tname = inst.type.name
    targs = [resolve_type(env, a, const_eval) for a in inst.type.args]
    argv = [lower(a.value, ctx) for a in inst.args]
    si = source_info(inst.pos, tname)

    def num(i: int, what: str) -> int:
        if i >= len(argv) or not isinstance(argv[i], Const):
            raise CompileError(inst.pos, f"{tname} {what} must be a constant")
        return argv[i].value  # type: ignore[union-attr,attr-defined]

    def enum_name(i: int) -> str:
        v = argv[i] if i < len(argv) else None
        if not isinstance(v, Const) or not isinstance(v.type, T.EnumT):
            raise CompileError(inst.pos, f"{tname}: argument {i + 1} must be an enum constant")
        return next(n for n, x in v.type.members if x == v.value)

    info: dict[str, Any] = {"type": tname, "targs": targs}
    out = env.out
    if tname == "register":
        if not targs or not isinstance(targs[0], T.Bits):
            raise CompileError(inst.pos, "register<T> needs a bit<W> element type")
        out["register_arrays"].append(
            {
                "name": cp_name,
                "id": len(out["register_arrays"]),
                "source_info": si,
                "size": num(0, "size"),
                "bitwidth": targs[0].width,
            }
        )
    elif tname == "counter":
        env.counter_units[cp_name] = enum_name(1)
        out["counter_arrays"].append(
            {
                "name": cp_name,
                "id": len(out["counter_arrays"]),
                "source_info": si,
                "size": num(0, "size"),
                "is_direct": False,
            }
        )
    elif tname == "meter":
        out["meter_arrays"].append(
            {
                "name": cp_name, "id": len(out["meter_arrays"]), "source_info": si, "is_direct": False,
                "size": num(0, "size"), "rate_count": 2, "type": enum_name(1),
            }
        )  # fmt: skip
    elif tname in ("direct_counter", "direct_meter"):
        info["kind"] = enum_name(0)
        if tname == "direct_counter":
            env.counter_units[cp_name] = info["kind"]
    elif tname == "action_profile":
        info["size"] = num(0, "size")
    elif tname == "action_selector":
        info["algo"] = algo_name(argv[0], inst.pos) if argv else "crc16"
        info["size"] = num(1, "size")
        info["width"] = num(2, "output width")
    elif tname in ("Checksum16",):
        raise CompileError(
            inst.pos, "Checksum16 is not supported (use verify_checksum/update_checksum)"
        )
    else:
        decl = env.type_decls.get(tname)
        if isinstance(decl, A.ParserDecl | A.ControlDecl):
            return ObjRef("subblock", cp_name, decl, T.NamedT("block", tname), {"args": inst.args})
        raise CompileError(inst.pos, f"unsupported extern type '{tname}'")
    return ObjRef("extern", cp_name, inst, T.NamedT("extern", tname, tuple(targs)), info)


# ------------------------------------------------------------------ extern methods
def extern_method(ctx: Ctx, call: A.Call, base: ObjRef, name: str, pos: Pos) -> Value:
    if base.kind == "packet_in":
        from emulator.p4c.parsers import packet_in_method

        return packet_in_method(ctx, call, name, pos)
    if base.kind == "packet_out":
        from emulator.p4c.deparser import packet_out_method

        return packet_out_method(ctx, call, name, pos)
    if base.kind == "table":
        raise CompileError(
            pos,
            "a table can only be applied as a statement or in an if/switch condition of a control's apply block",
        )
    if base.kind != "extern":
        raise CompileError(pos, f"'{base.name}' has no method '{name}'")
    t = base.extra["type"]
    ref = base.name
    if t == "register":
        elem = base.extra["targs"][0]
        idx_t = base.extra["targs"][1] if len(base.extra["targs"]) > 1 else T.Bits(32)
        arr = {"type": "register_array", "value": ref}
        if name == "read":
            if len(call.args) == 1:
                (i,) = args_of(call, ["index"], pos, "register.read")
                dst = ctx.temp(elem, pos)
            else:
                o, i = args_of(call, ["result", "index"], pos, "register.read")
                dst = _out(ctx, o, elem)
            idx = _in(ctx, i, idx_t)
            ctx.emit("register_read", [dst.json, arr, idx], pos)
            return RV(dst.json, elem) if len(call.args) == 1 else VOID
        if name == "write":
            i, v = args_of(call, ["index", "value"], pos, "register.write")
            ctx.emit("register_write", [arr, _in(ctx, i, idx_t), _in(ctx, v, elem)], pos)
            return VOID
    elif t == "counter" and name == "count":
        (i,) = args_of(call, ["index"], pos, "counter.count")
        idx_t = base.extra["targs"][0] if base.extra["targs"] else T.Bits(32)
        ctx.emit("count", [{"type": "counter_array", "value": ref}, _in(ctx, i, idx_t)], pos)
        return VOID
    elif t == "meter" and name == "execute_meter":
        i, o = args_of(call, ["index", "result"], pos, "meter.execute_meter")
        idx_t = base.extra["targs"][0] if base.extra["targs"] else T.Bits(32)
        dst = _out(ctx, o, None)
        ctx.emit(
            "execute_meter",
            [{"type": "meter_array", "value": ref}, _in(ctx, i, idx_t), dst.json],
            pos,
        )
        return VOID
    elif t == "direct_counter" and name == "count":
        args_of(call, [], pos, "direct_counter.count")
        return VOID
    elif t == "direct_meter" and name == "read":
        (o,) = args_of(call, ["result"], pos, "direct_meter.read")
        dst = _out(ctx, o, None)
        base.extra["result_target"] = dst.json["value"] if dst.json.get("type") == "field" else None
        return VOID
    raise CompileError(pos, f"{t} has no method '{name}'")


def _out(ctx: Ctx, e: A.Expr, t: T.Type | None) -> RV:
    v = lower(e, ctx)
    if not isinstance(v, RV) or not v.lvalue:
        raise CompileError(e.pos, "out argument must be a field or variable")
    if t is not None and v.type != t:
        raise CompileError(
            e.pos, f"type mismatch: out argument of type {v.type.show()}, expected {t.show()}"
        )
    return v


def _in(ctx: Ctx, e: A.Expr, t: T.Type | None) -> dict[str, Any]:
    v = scalar(lower(e, ctx, t), e.pos)
    if t is not None:
        v = coerce(v, t, e.pos, "argument")  # type: ignore[assignment]
    return to_data(v)


# ------------------------------------------------------------------ extern functions
def extern_function(
    ctx: Ctx, call: A.Call, name: str, decls: list[A.ExternDecl], pos: Pos
) -> Value:
    n = len(call.args)
    if name == "mark_to_drop":
        args_of(call, ["standard_metadata"], pos, name, optional=1)
        ctx.emit("mark_to_drop", [STD], pos)
    elif name == "hash":
        o, a, b, d, m = args_of(call, ["result", "algo", "base", "data", "max"], pos, name)
        dst = _out(ctx, o, None)
        algo = algo_name(lower(a, ctx), a.pos)
        inputs = field_list(lower(d, ctx), d.pos, ctx)
        cname = calculation(ctx, algo, inputs, pos)
        base = scalar(lower(b, ctx, dst.type), b.pos)
        mx = scalar(lower(m, ctx, T.Bits(32)), m.pos)
        bt = base.type if isinstance(base.type, T.Bits) else dst.type
        mt = mx.type if isinstance(mx.type, T.Bits) else T.Bits(32)
        ctx.emit(
            "modify_field_with_hash_based_offset",
            [
                dst.json,
                to_data(coerce(base, bt, b.pos)),  # type: ignore[arg-type]
                {"type": "calculation", "value": cname},
                to_data(coerce(mx, mt, m.pos)),  # type: ignore[arg-type]
            ],  # type: ignore[arg-type]
            pos,
        )
    elif name == "random":
        o, lo, hi = args_of(call, ["result", "lo", "hi"], pos, name)
        dst = _out(ctx, o, None)
        ctx.emit(
            "modify_field_rng_uniform",
            [dst.json, _in(ctx, lo, dst.type), _in(ctx, hi, dst.type)],
            pos,
        )
    elif name == "digest":
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
        ctx.emit("generate_digest", [_in(ctx, r, T.Bits(32)), hexv(lid)], pos)
    elif name in ("clone", "clone3", "clone_preserving_field_list"):
        names = ["type", "session"] + (
            ["data"] if name == "clone3" else ["index"] if n == 3 else []
        )
        args = args_of(call, names, pos, name)
        ct = lower(args[0], ctx)
        if (
            not isinstance(ct, Const)
            or not isinstance(ct.type, T.EnumT)
            or ct.type.name != "CloneType"
        ):
            raise CompileError(args[0].pos, "expected CloneType.I2E or CloneType.E2E")
        op = "clone_ingress_pkt_to_egress" if ct.value == 0 else "clone_egress_pkt_to_egress"
        fl = _field_list_id(ctx, name, args[2] if len(args) > 2 else None, pos)
        ctx.emit(op, [_in(ctx, args[1], T.Bits(32)), hexv(fl)], pos)
    elif name in (
        "resubmit",
        "recirculate",
        "resubmit_preserving_field_list",
        "recirculate_preserving_field_list",
    ):
        (a,) = args_of(call, ["data"], pos, name)
        fl = _field_list_id(ctx, name, a, pos)
        ctx.emit(name.split("_")[0], [hexv(fl)], pos)
    elif name == "truncate":
        (a,) = args_of(call, ["length"], pos, name)
        ctx.emit("truncate", [_in(ctx, a, T.Bits(32))], pos)
    elif name in ("assert", "assume"):
        (a,) = args_of(call, ["check"], pos, name)
        c = scalar(lower(a, ctx), a.pos)
        if not isinstance(c.type, T.BoolT):
            raise CompileError(a.pos, f"{name} needs a bool argument")
        ctx.emit(name, [to_data(c)], pos)  # BMv2's assert/assume take data (b2d of the check)
    elif name == "log_msg":
        args = args_of(call, ["msg", "data"], pos, name, optional=1)
        msg = lower(args[0], ctx)
        if not isinstance(msg, ObjRef) or msg.kind != "string":
            raise CompileError(args[0].pos, "log_msg needs a string literal")
        params: list[Any] = []
        if len(args) > 1:
            data = lower(args[1], ctx)
            from emulator.p4c.values import ListV

            items = data.items if isinstance(data, ListV) else [data]
            params = [to_data(scalar(x, args[1].pos)) for x in items]
        ctx.emit(
            "log_msg",
            [{"type": "string", "value": msg.name}, {"type": "parameters_vector", "value": params}],
            pos,
        )
    elif name == "verify":
        from emulator.p4c.parsers import verify_call

        verify_call(ctx, call, pos)
    elif name in (
        "verify_checksum",
        "update_checksum",
        "verify_checksum_with_payload",
        "update_checksum_with_payload",
    ):
        from emulator.p4c.deparser import checksum_call

        checksum_call(ctx, call, name, pos)
    else:
        raise CompileError(pos, f"extern function '{name}' is not supported on this target")
    return VOID


def _field_list_id(ctx: Ctx, name: str, arg: A.Expr | None, pos: Pos) -> int:
    """JSON field list id, as p4c assigns them (sequential from 1).

    ``*_preserving_field_list(i)`` uses the list ``field_list<i>`` of the user metadata fields
    tagged ``@field_list(i)``; plain ``clone`` gets a new empty list; the deprecated
    ``clone3``/``resubmit``/``recirculate`` a list built from their data argument.
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
