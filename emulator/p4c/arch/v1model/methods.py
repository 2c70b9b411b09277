"""Methods of v1model extern objects (register, counter, meter, direct_*) and of packets."""

from __future__ import annotations

from collections.abc import Callable

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import RV, ObjRef, Value
from emulator.p4c.lowering.calls import VOID, args_of, in_arg, out_arg
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.deparser_blocks import packet_out_method
from emulator.p4c.lowering.out_stores import drop_dead_store
from emulator.p4c.lowering.parser_blocks import packet_in_method

ExternMethod = Callable[[Ctx, A.Call, ObjRef, Pos], Value]


def _index_type(base: ObjRef, i: int) -> T.Type:
    targs = base.extra["targs"]
    return targs[i] if len(targs) > i else T.Bits(32)


def _register_read(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    elem = base.extra["targs"][0]
    if len(call.args) == 1:
        (i,) = args_of(call, ["index"], pos, "register.read")
        dst = ctx.temp(elem, pos)
    else:
        o, i = args_of(call, ["result", "index"], pos, "register.read")
        dst = out_arg(ctx, o, elem)
    idx = in_arg(ctx, i, _index_type(base, 1))
    if len(call.args) != 1:  # p4c's dead-store pass: an index past the end shows it
        drop_dead_store(ctx, dst.json, idx)
    arr = {"type": "register_array", "value": base.name}
    ctx.emit("register_read", [dst.json, arr, idx], pos)
    return RV(dst.json, elem) if len(call.args) == 1 else VOID


def _register_write(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    i, v = args_of(call, ["index", "value"], pos, "register.write")
    arr = {"type": "register_array", "value": base.name}
    idx = in_arg(ctx, i, _index_type(base, 1))
    ctx.emit("register_write", [arr, idx, in_arg(ctx, v, base.extra["targs"][0])], pos)
    return VOID


def _counter_count(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    (i,) = args_of(call, ["index"], pos, "counter.count")
    idx = in_arg(ctx, i, _index_type(base, 0))
    ctx.emit("count", [{"type": "counter_array", "value": base.name}, idx], pos)
    return VOID


def _meter_execute(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    i, o = args_of(call, ["index", "result"], pos, "meter.execute_meter")
    idx_t = _index_type(base, 0)
    dst = out_arg(ctx, o, None)
    arr = {"type": "meter_array", "value": base.name}
    index = in_arg(ctx, i, idx_t)
    drop_dead_store(ctx, dst.json, index)  # p4c's dead-store pass: an index past the end shows it
    ctx.emit("execute_meter", [arr, index, dst.json], pos)
    return VOID


def _direct_counter_count(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    args_of(call, [], pos, "direct_counter.count")
    return VOID


def _direct_meter_read(ctx: Ctx, call: A.Call, base: ObjRef, pos: Pos) -> Value:
    (o,) = args_of(call, ["result"], pos, "direct_meter.read")
    dst = out_arg(ctx, o, None)
    base.extra["result_target"] = dst.json["value"] if dst.json.get("type") == "field" else None
    return VOID


EXTERN_METHODS: dict[tuple[str, str], ExternMethod] = {
    ("register", "read"): _register_read,
    ("register", "write"): _register_write,
    ("counter", "count"): _counter_count,
    ("meter", "execute_meter"): _meter_execute,
    ("direct_counter", "count"): _direct_counter_count,
    ("direct_meter", "read"): _direct_meter_read,
}


def extern_method(ctx: Ctx, call: A.Call, base: ObjRef, name: str, pos: Pos) -> Value:
    """Lower ``base.name(...)``: packet methods, then the extern's entry in EXTERN_METHODS."""
    if base.kind == "packet_in":
        return packet_in_method(ctx, call, name, pos)
    if base.kind == "packet_out":
        return packet_out_method(ctx, call, name, pos)
    if base.kind == "table":
        raise CompileError(
            pos,
            "a table can only be applied as a statement or in an if/switch condition of a control's apply block",
        )
    if base.kind != "extern":
        raise CompileError(pos, f"'{base.name}' has no method '{name}'")
    t = base.extra["type"]
    handler = EXTERN_METHODS.get((t, name))
    if handler is None:
        raise CompileError(pos, f"{t} has no method '{name}'")
    return handler(ctx, call, base, pos)
