"""v1model extern instances: register, counter, meter, direct_*, action_profile/selector."""

from __future__ import annotations

from typing import Any

from emulator.p4c.arch.v1model.hash_algorithms import algo_name
from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import source_info
from emulator.p4c.frontend.values import Const, ObjRef
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import const_eval, lower


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
