"""Calls: header/stack methods, action and function inlining; externs go to ``ctx.arch``."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.ast import expr_text
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import Scope
from emulator.p4c.frontend.values import (
    RV,
    Const,
    HeaderRef,
    ListV,
    ObjRef,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
    Value,
    expr_json,
    hexv,
    to_data,
)  # fmt: skip
from emulator.p4c.lowering.arg_eval import may_change
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import coerce, const_eval, lower, scalar
from emulator.p4c.lowering.generics import TypeParams, type_params
from emulator.p4c.lowering.restore_args import (
    Copy,
    Pending,
    invalidate_out,
    restorable,
    restore_written,
)
from emulator.p4c.lowering.static_assert import is_static_assert, static_assert
from emulator.p4c.lowering.stmts import assign_value, conditional_exit, exit_in, lower_block

VOID = ObjRef("void", "", type=T.VOID)


def args_of(call: A.Call, names: list[str], pos: Pos, what: str, optional: int = 0) -> list[A.Expr]:
    """Positional or named arguments in declaration order, checking the count."""
    n_min, n_max = len(names) - optional, len(names)
    if not n_min <= len(call.args) <= n_max:
        want = str(n_max) if n_min == n_max else f"{n_min} to {n_max}"
        raise CompileError(pos, f"{what} expects {want} arguments, got {len(call.args)}")
    if all(a.name is None for a in call.args):
        return [a.value for a in call.args]
    by_name = {a.name: a.value for a in call.args}
    out = []
    for n in names[: len(call.args)]:
        if n not in by_name:
            raise CompileError(pos, f"{what}: missing argument '{n}'")
        out.append(by_name[n])
    return out


def field_list(v: Value, pos: Pos, ctx: Ctx, allow_const: bool = True) -> list[dict[str, Any]]:
    """Flatten a list/struct/header value into BMv2 field references (hash input, digests)."""
    out: list[dict[str, Any]] = []
    if isinstance(v, ListV):
        for item in v.items:
            out.extend(field_list(item, pos, ctx, allow_const))
    elif isinstance(v, StructRef):
        for f in v.fields.values():
            out.extend(field_list(f, pos, ctx, allow_const))
    elif isinstance(v, HeaderRef):
        for fname, _ in v.type.fields:
            out.append({"type": "field", "value": [v.name, fname]})
    elif isinstance(v, RV):
        if v.json.get("type") == "field":
            out.append(v.json)
        else:  # an expression: evaluate into a temporary first
            t = v.type if isinstance(v.type, T.Bits) else T.Bits(1)
            tmp = ctx.temp(t, pos)
            ctx.emit("assign", [tmp.json, to_data(v)], pos)
            out.append(tmp.json)
    elif isinstance(v, Const):
        w = T.width_of(v.type)
        if w is None:
            raise CompileError(pos, "constants in a field list need a width (e.g. 8w1)")
        if not allow_const:
            tmp = ctx.temp(v.type, pos)
            ctx.emit("assign", [tmp.json, v.json()], pos)
            out.append(tmp.json)
        else:
            out.append({"type": "hexstr", "value": hexv(v.value, w)["value"], "bitwidth": w})
    else:
        raise CompileError(pos, f"cannot use {v.type.show()} in a field list")
    return out


def calculation(
    ctx: Ctx, algo: str, inputs: list[dict[str, Any]], pos: Pos, name: str = "calc"
) -> str:
    """Add a ``calculations`` entry and return its name."""
    cname = ctx.env.unique(name)
    calcs = ctx.env.out["calculations"]
    calcs.append(
        {
            "name": cname,
            "id": len(calcs),
            "source_info": {
                "filename": pos.file,
                "line": pos.line,
                "column": pos.col,
                "source_fragment": "",
            },
            "algo": algo,
            "input": inputs,
        }
    )
    return cname


def lower_call(ctx: Ctx, call: A.Call, as_stmt: bool) -> Value:
    """Lower a call expression or statement, emitting primitives into ``ctx``."""
    if is_static_assert(call):  # checked now; nothing to run
        static_assert(call, ctx, lower)
        return VOID
    fn = lower(call.func, ctx)
    pos = call.pos
    if isinstance(fn, ObjRef):
        if fn.kind == "method":
            return _method(ctx, call, fn.decl, fn.name, pos)
        if fn.kind == "func":
            return ctx.architecture(pos).extern_function(ctx, call, fn.name, fn.extra, pos)
        if fn.kind == "action":
            inline_action(ctx, fn.decl, call.args, pos, fn.extra)
            return VOID
        if fn.kind == "function":
            with type_params(ctx, fn.decl, call.type_args, pos) as tps:
                return inline_function(ctx, fn.decl, call.args, pos, tps)
    raise CompileError(pos, f"'{_callee_text(call)}' cannot be called here")


def _callee_text(call: A.Call) -> str:
    return expr_text(call.func)


def _method(ctx: Ctx, call: A.Call, base: Value, name: str, pos: Pos) -> Value:
    if name in T.SIZE_METHODS and isinstance(base, HeaderRef | ObjRef):
        args_of(call, [], pos, f"{name}()")
        ht = base.type
        if not isinstance(ht, T.StructT):
            raise CompileError(pos, f"{name}() needs a header or its type")
        bits = ht.size_in_bits(name.startswith("max"))
        return Const(bits if name.endswith("Bits") else (bits + 7) // 8, T.INFINT)
    if isinstance(base, HeaderRef):
        args_of(call, [], pos, f"{name}()")
        if name == "isValid":
            if base.dyn is not None:
                return RV(expr_json("valid", None, base.dyn), T.BOOL, boolean=True)
            j = expr_json("d2b", None, {"type": "field", "value": [base.name, "$valid$"]})
            return RV(j, T.BOOL, boolean=True)
        if name in ("setValid", "setInvalid"):
            ctx.emit("add_header" if name == "setValid" else "remove_header", [base.json()], pos)
            return VOID
        raise CompileError(pos, f"header has no method '{name}'")
    if isinstance(base, UnionRef):
        if name == "isValid":
            args_of(call, [], pos, "isValid()")
            return RV(
                expr_json("valid_union", None, {"type": "header_union", "value": base.name}),
                T.BOOL,
                boolean=True,
            )
        raise CompileError(pos, f"header_union has no method '{name}'")
    if isinstance(base, StackRef | UnionStackRef):
        if name in ("push_front", "pop_front"):
            (n,) = args_of(call, ["count"], pos, name)
            cnt = lower(n, ctx)
            if not isinstance(cnt, Const):
                raise CompileError(n.pos, f"{name} needs a constant count")
            kind = "header_stack" if isinstance(base, StackRef) else "header_union_stack"
            ctx.emit(
                "push" if name == "push_front" else "pop",
                [{"type": kind, "value": base.name}, hexv(cnt.value)],
                pos,
            )
            return VOID
        raise CompileError(pos, f"header stack has no method '{name}'")
    if isinstance(base, ObjRef) and base.kind in ("stack_next", "union_stack_member"):
        raise CompileError(pos, f"'.next' of a stack is only an extract target, not '{name}'")
    if isinstance(base, ObjRef):
        return ctx.architecture(pos).extern_method(ctx, call, base, name, pos)
    raise CompileError(pos, f"value of type {base.type.show()} has no method '{name}'")


def call_args(
    params: tuple[A.Param, ...], args: tuple[A.Arg, ...], pos: Pos, what: str
) -> list[A.Expr]:
    """The argument expression of each parameter: positional or named arguments, then the
    parameters' default values (``bit<8> x = 7``) for those left out."""
    if len(args) > len(params):
        raise CompileError(pos, f"{what} expects {len(params)} arguments, got {len(args)}")
    if any(a.name for a in args) and not all(a.name for a in args):
        raise CompileError(pos, f"{what}: arguments are all named or all positional")
    by_name = {a.name: a.value for a in args if a.name}
    names = {p.name for p in params}
    for n in by_name:
        if n not in names:
            raise CompileError(pos, f"{what} has no parameter '{n}'")
    out = []
    for i, p in enumerate(params):
        e = by_name.get(p.name) if by_name else (args[i].value if i < len(args) else None)
        e = e if e is not None else p.default
        if e is None and by_name:
            raise CompileError(pos, f"{what}: missing argument '{p.name}'")
        if e is None:
            raise CompileError(pos, f"{what} expects {len(params)} arguments, got {len(args)}")
        out.append(e)
    return out


def inline_action(
    ctx: Ctx, decl: A.ActionDecl, args: tuple[A.Arg, ...], pos: Pos, bound: Any = None
) -> None:
    """Inline a direct action call: parameters become the argument values."""
    if (exit_stmt := conditional_exit(decl.body)) is not None:  # as p4c-bm2-ss
        raise CompileError(
            exit_stmt.pos, "exit under a condition in an action is not supported on BMv2"
        )
    exprs = call_args(decl.params, args, pos, f"action {decl.name}")
    scope_parent = bound if bound is not None else ctx.env.globals
    inner = ctx.fresh(Scope(scope_parent), "action", ctx.prefix)
    inner.prims = ctx.prims
    copies: list[Copy] = []
    pending: list[Pending] = []  # unnamed inout arguments the body may write another way
    for p, e in zip(decl.params, exprs, strict=True):
        t = resolve_type(ctx.env, p.type, const_eval)
        v = lower(e, ctx, t)
        if restorable(p.direction, mentions(decl.body, p.name), v):
            pending.append((len(copies), v, t, e.pos))  # type: ignore[arg-type]
        if p.direction in ("", "in") and isinstance(v, RV | Const) and not isinstance(t, T.StructT):
            v = coerce(v, t, e.pos, "argument")
            # evaluated at the call, as p4c does: an ``in`` argument always; a directionless
            # one in a call from a control (p4c substitutes it where an action calls one)
            at_call = p.direction == "in" or ctx.where != "action"
            if isinstance(v, RV) and (
                (p.direction == "in" and v.lvalue)
                or (at_call and _reads_fields(v.json) and may_change(decl.body, e))
            ):
                tmp = ctx.temp(t, e.pos, p.name)
                ctx.emit("assign", [tmp.json, to_data(v)], e.pos)
                v = RV(tmp.json, t)
        v = struct_arg(ctx, p, v, t, e.pos)
        v = copy_in(ctx, p, v, t, e.pos, copies, decl.body)
        inner.scope.bind(p.name, v)
    start = len(ctx.prims)
    lower_block(decl.body.stmts, inner)
    body_end = restore_written(ctx, pending, copies, start, len(ctx.prims))
    copy_out(ctx, copies, pos)
    copy_out_before_exit(ctx, start, body_end, decl)


def copy_out_before_exit(ctx: Ctx, start: int, body_end: int, decl: A.ActionDecl) -> None:
    """Move the copy-out (``prims[body_end:]``) before the action's ``exit``: the arguments
    are written back when the action exits, as p4c does (an exit is unconditional on BMv2)."""
    ops = [p["op"] for p in ctx.prims[start:body_end]]
    if "exit" not in ops or body_end == len(ctx.prims):
        return
    at = start + ops.index("exit")
    if any(op in ("_jump", "_jump_if_zero") for op in ops[at - start :]):
        pos = exit_in(decl.body).pos  # type: ignore[union-attr]
        raise CompileError(pos, "exit before a jump in an action with out/inout parameters")
    copies = ctx.prims[body_end:]
    del ctx.prims[body_end:]
    ctx.prims[at:at] = copies


def inline_function(
    ctx: Ctx, decl: A.FunctionDecl, args: tuple[A.Arg, ...], pos: Pos, tps: TypeParams
) -> Value:
    """Inline a P4 function call; ``return e`` assigns a temporary and jumps to the end.
    A generic function's type parameters not yet bound take their arguments' types."""
    if ctx.where not in ("action", "control", "parser"):
        raise CompileError(
            pos, "function calls are only supported in parser states, actions and controls"
        )
    exprs = call_args(decl.params, args, pos, f"function {decl.name}")
    inner = ctx.fresh(type(ctx.scope)(ctx.env.globals), "action", ctx.prefix)
    inner.prims = ctx.prims
    copies: list[Copy] = []
    pending: list[Pending] = []  # unnamed inout arguments the body may write another way
    for p, e in zip(decl.params, exprs, strict=True):
        if tps.unbound(p.type):  # T x: the argument's type is T's
            v = lower(e, ctx)
            tps.bind(p.type.name, v.type, e.pos)
            t = resolve_type(ctx.env, p.type, const_eval)
        else:
            t = resolve_type(ctx.env, p.type, const_eval)
            v = lower(e, ctx, t)
        if restorable(p.direction, mentions(decl.body, p.name), v):
            pending.append((len(copies), v, t, e.pos))  # type: ignore[arg-type]
        if p.direction in ("", "in") and isinstance(v, RV | Const):
            tmp = ctx.temp(t, e.pos, p.name)
            assign_value(tmp, v, ctx, e.pos)
            v = RV(tmp.json, t)
        v = struct_arg(ctx, p, v, t, e.pos)
        inner.scope.bind(p.name, copy_in(ctx, p, v, t, e.pos, copies, decl.body))
    rt = resolve_type(ctx.env, decl.ret, const_eval)
    result: Value | None = None
    if isinstance(rt, T.StructT):  # a header or struct: storage of its own, as for a local
        result = ctx.env.allocate(ctx.env.unique(f"{decl.name}_ret"), rt, pos)
    elif not isinstance(rt, T.VoidT):
        result = ctx.temp(rt, pos, f"{decl.name}_ret")
    inner.func_result = result
    body_start = len(ctx.prims)
    lower_block(decl.body.stmts, inner)  # a return jumps here, before the copy-out
    if ctx.where == "parser":
        straight_line(ctx, body_start, decl, pos)
    restore_written(ctx, pending, copies, body_start, len(ctx.prims))
    copy_out(ctx, copies, pos)
    if isinstance(result, RV):
        return RV(result.json, rt)
    return result if result is not None else VOID


def straight_line(ctx: Ctx, start: int, decl: A.FunctionDecl, pos: Pos) -> None:
    """A function inlined into a parser state: drop the ``return`` jumps to the next
    primitive; any other jump (an ``if``, an early ``return``) has no parser op to become.
    A ``?:`` in its body is refused too: p4c-bm2-ss makes an ``if`` of it there ("not
    supported in parser"), though it takes one written in the state itself."""
    mux = next((n for n in A.nodes(decl.body) if isinstance(n, A.Ternary)), None)
    if mux is not None:
        raise CompileError(
            mux.pos,
            f"function {decl.name} holds a conditional expression (?:): p4c-bm2-ss turns it "
            "into an if statement, which a parser state cannot hold",
        )
    kept = []
    for i, p in enumerate(ctx.prims[start:], start):
        if p["op"] not in ("_jump", "_jump_if_zero"):
            kept.append(p)
        elif p["op"] == "_jump" and int(p["parameters"][-1]["value"], 16) == i + 1:
            continue
        else:
            raise CompileError(
                pos,
                f"function {decl.name} has an if statement or an early return: only "
                "straight-line functions can be called in a parser state",
            )
    ctx.prims[start:] = kept


def struct_arg(ctx: Ctx, p: A.Param, v: Value, t: T.Type, pos: Pos) -> Value:
    """An ``in`` argument of struct or header type given as ``{...}``: the parameter gets
    storage of its own, initialised from the list (a header so made is valid)."""
    if p.direction not in ("", "in") or not isinstance(v, ListV):
        return v
    if not isinstance(t, T.StructT):
        return v
    storage = ctx.env.allocate(ctx.env.unique(f"{p.name}_arg"), t, pos)
    assign_value(storage, v, ctx, pos)
    return storage


def mentions(node: object, name: str) -> bool:
    """Whether the AST ``node`` names ``name`` anywhere (a conservative use check)."""
    return any(isinstance(n, A.Name) and n.name == name for n in A.nodes(node))


def copy_in(
    ctx: Ctx,
    p: A.Param,
    v: Value,
    t: T.Type,
    pos: Pos,
    copies: list[Copy],
    body: A.Stmt,
    inputs: bool = False,
) -> Value:
    """What an ``inout``/``out`` parameter is bound to: a copy of the argument (copied in for
    ``inout``), written back by ``copy_out``, so aliased arguments behave as in P4. With
    ``inputs`` an ``in`` parameter gets a copy too (copied in, never written back)."""
    directions = ("in", "inout", "out") if inputs else ("inout", "out")
    if p.direction not in directions or isinstance(v, ObjRef):
        return v
    if not mentions(body, p.name):  # as p4c: an unused parameter is neither read nor written,
        if p.direction == "out" and not isinstance(v, RV):  # but its headers end invalid
            copies.append((v, None, pos))
        return v
    if p.direction != "in":
        v = freeze_indices(ctx, v, pos)
    if isinstance(t, T.StructT | T.StackT):
        storage = ctx.env.allocate(ctx.env.unique(f"{p.name}_copy"), t, pos)
    else:
        storage = ctx.temp(t, pos, p.name)
    if p.direction != "out":
        assign_value(storage, v, ctx, pos)
    if p.direction != "in":
        copies.append((v, storage, pos))
    return storage


def freeze_indices(ctx: Ctx, v: Value, pos: Pos) -> Value:
    """``v`` with each run-time header-stack index read into a temporary now: an
    ``inout``/``out`` argument such as ``hdr.es[hdr.h.i].v`` is written back to the element
    the index chose at the call, whatever the callee does to ``hdr.h.i`` (as p4c)."""
    if not isinstance(v, RV):
        return v
    temps: dict[str, Any] = {}  # an index's JSON text -> its temporary (a slice: once)

    def fix(j: Any) -> Any:
        if isinstance(j, list):
            return [fix(x) for x in j]
        if not isinstance(j, dict):
            return j
        out = {k: fix(x) for k, x in j.items()}
        index = out.get("right")
        if (
            out.get("op") == "dereference_header_stack"
            and isinstance(index, dict)
            and index.get("type") != "hexstr"
        ):
            key = json.dumps(index, sort_keys=True)
            if key not in temps:
                temps[key] = ctx.temp(T.Bits(32), pos, "index").json
                ctx.emit("assign", [temps[key], index], pos)
            out["right"] = temps[key]
        return out

    frozen = fix(v.json)
    if frozen == v.json:
        return v
    sl = v.slice_of
    return replace(v, json=frozen, slice_of=sl and (fix(sl[0]), sl[1], sl[2]))


def copy_out(ctx: Ctx, copies: list[Copy], pos: Pos) -> None:
    """Write ``inout``/``out`` parameters back to their arguments, left to right (no
    storage: an unnamed ``out`` parameter, whose headers become invalid)."""
    for arg, storage, apos in copies:
        if storage is None:
            invalidate_out(ctx, arg, apos)
        else:
            assign_value(arg, storage, ctx, apos)


def out_arg(ctx: Ctx, e: A.Expr, t: T.Type | None) -> RV:
    """An ``out`` argument: a field or variable, of type ``t`` when given."""
    v = lower(e, ctx)
    if not isinstance(v, RV) or not v.lvalue:
        raise CompileError(e.pos, "out argument must be a field or variable")
    if t is not None and v.type != t:
        raise CompileError(
            e.pos, f"type mismatch: out argument of type {v.type.show()}, expected {t.show()}"
        )
    return v


def in_arg(ctx: Ctx, e: A.Expr, t: T.Type | None) -> dict[str, Any]:
    """An ``in`` argument as primitive data, converted to ``t`` when given."""
    v = scalar(lower(e, ctx, t), e.pos)
    if t is not None:
        v = coerce(v, t, e.pos, "argument")  # type: ignore[assignment]
    return to_data(v)


def _reads_fields(j: Any) -> bool:
    """Whether operand JSON ``j`` reads a field (else it is a constant expression)."""
    if isinstance(j, dict):
        return j.get("type") == "field" or any(_reads_fields(v) for v in j.values())
    if isinstance(j, list):
        return any(_reads_fields(v) for v in j)
    return False
