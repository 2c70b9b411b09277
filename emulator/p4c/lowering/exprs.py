"""Expression type checking, constant folding and lowering to BMv2 JSON operands."""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import fold_compare, untyped_literal, wrap
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import Env
from emulator.p4c.frontend.types import SIZE_METHODS
from emulator.p4c.frontend.values import (
    RV,
    Const,
    HeaderRef,
    InvalidHeaderV,
    ListV,
    ObjRef,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
    Value,
    expr_json,
    hexv,
    mask,
    to_bool,
    to_data,
)  # fmt: skip
from emulator.p4c.lowering import union_stacks
from emulator.p4c.lowering.concat import concat
from emulator.p4c.lowering.const_flow import Known
from emulator.p4c.lowering.const_values import const_aggregate, int_constant
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.conversions import coerce, unify
from emulator.p4c.lowering.div_mod import div_mod, fold_consts
from emulator.p4c.lowering.header_ops import aggregate_equality
from emulator.p4c.lowering.shifts import masked, shift
from emulator.p4c.lowering.static_assert import is_static_assert, static_assert


def const_eval(e: A.Expr, env: Env, expected: T.Type | None = None) -> Value:
    """Evaluate a constant expression at global scope."""
    ctx = Ctx(env, env.globals, "global")
    v = lower(e, ctx, expected)
    if expected is not None and isinstance(v, ListV):  # a constant struct or tuple
        return const_aggregate(v, expected, e.pos)
    if expected is not None and isinstance(v, Const):
        return coerce(v, expected, e.pos) if not isinstance(expected, T.InfInt) else v
    return v


def lower(e: A.Expr, ctx: Ctx, expected: T.Type | None = None) -> Value:
    """Lower an expression; ``expected`` types untyped integer literals."""
    try:
        v = _lower(e, ctx, expected)
    except (OverflowError, MemoryError, ValueError) as exc:  # e.g. a negative or huge shift
        raise CompileError(e.pos, f"cannot compute this constant: {exc}") from None
    if (
        expected is not None
        and isinstance(v, Const)
        and isinstance(v.type, T.InfInt)
        and isinstance(expected, (T.Bits, T.InfInt))
    ):
        return coerce(v, expected, e.pos)
    return v


def _lower(e: A.Expr, ctx: Ctx, expected: T.Type | None) -> Value:
    if isinstance(e, A.IntLit):
        if e.width is not None:
            if e.width <= 0:
                raise CompileError(e.pos, "integer width must be positive")
            t = T.Bits(e.width, e.signed)
            if e.value >= (1 << e.width):  # p4c only warns and cuts it: almost surely a slip
                raise CompileError(e.pos, f"value {e.value} does not fit in {t.show()}")
            return Const(wrap(e.value, t), t)
        return Const(e.value, T.INFINT)
    if isinstance(e, A.BoolLit):
        return Const(int(e.value), T.BOOL)
    if isinstance(e, A.StrLit):
        return ObjRef("string", e.value, type=T.STRING)
    if isinstance(e, A.Name):
        if ctx.subst is not None and not e.top:
            return ctx.subst(e)
        v = (ctx.env.globals if e.top else ctx.scope).lookup(e.name)
        if v is None and e.name in ctx.env.type_decls:  # a type: h_t.minSizeInBits()
            return ObjRef(
                "type",
                e.name,
                None,
                resolve_type(ctx.env, A.TypeRef(e.pos, "name", e.name), const_eval),
            )
        if v is None:
            raise CompileError(e.pos, f"'{e.name}' is not declared")
        return v
    if isinstance(e, A.Member):
        return member(lower(e.expr, ctx), e.name, e.pos, ctx)
    if isinstance(e, A.Index):
        return index(lower(e.expr, ctx), e.index, e.pos, ctx)
    if isinstance(e, A.Slice):
        return slice_read(e, ctx)
    if isinstance(e, A.Call):
        if is_static_assert(e):
            return static_assert(e, ctx, lower)
        if ctx.calls is None:
            raise CompileError(e.pos, "calls are not allowed in constant expressions")
        return ctx.calls(ctx, e, False)
    if isinstance(e, A.Unary):
        return unary(e, ctx, expected)
    if isinstance(e, A.Binary):
        return binary(e, ctx, expected)
    if isinstance(e, A.Ternary):
        return ternary(e, ctx, expected)
    if isinstance(e, A.InvalidHeader):
        raise CompileError(e.pos, "{#} needs a cast to its header type here: (h_t){#}")
    if isinstance(e, A.Cast):
        t = resolve_type(ctx.env, e.type, const_eval)  # type: ignore[assignment]
        if isinstance(e.expr, A.InvalidHeader):
            if not (isinstance(t, T.StructT) and t.kind == "header"):
                raise CompileError(e.pos, f"{{#}} is an invalid header, not a {t.show()}")
            return InvalidHeaderV(t)
        v = lower(e.expr, ctx, t if isinstance(t, T.Bits) else None)
        if isinstance(t, T.StructT) and isinstance(v, ListV):
            return v  # (H){a = 1, ...}: the initializer, as assigned without the cast
        return cast(v, t, e.pos)
    if isinstance(e, A.ListExpr):
        items = in_order(list(e.items), ctx)
        return ListV(items, T.TupleT(tuple(i.type for i in items)))
    if isinstance(e, A.StructExpr):
        items = in_order([x for _, x in e.fields], ctx)
        names = [n for n, _ in e.fields]
        return ListV(items, T.TupleT(tuple(i.type for i in items)), names, e.rest)
    if isinstance(e, A.DontCare | A.Default):
        return ObjRef("dontcare", "_")
    if isinstance(e, A.TypeExpr):
        return ObjRef("type", "", None, resolve_type(ctx.env, e.type, const_eval))
    raise CompileError(e.pos, "unsupported expression")


# ------------------------------------------------------------------ coercions
def scalar(v: Value, pos: Pos) -> RV | Const:
    if isinstance(v, RV | Const):
        return v
    raise CompileError(
        pos, f"expected a scalar value, found {v.type.show() if v.type else type(v).__name__}"
    )


def cast(v: Value, t: T.Type, pos: Pos) -> Value:
    """Explicit cast ``(t) v``; a serializable enum casts only to and from its own type,
    as p4c ("Cannot unify": ``(bit<8>)f`` of an ``enum bit<4>``)."""
    s = scalar(v, pos)
    vt = s.type
    for e, o in ((vt, t), (t, vt)):
        if isinstance(e, T.EnumT) and e.underlying and isinstance(o, T.Bits) and o != e.underlying:
            raise CompileError(
                pos,
                f"cannot cast {vt.show()} to {t.show()} (the enum's type is {e.underlying.show()})",
            )
    if isinstance(s, Const):
        if isinstance(t, T.Bits):
            return Const(wrap(s.value, t), t)
        if isinstance(t, T.BoolT):
            return Const(1 if s.value else 0, T.BOOL)
        if isinstance(t, T.EnumT):
            return Const(s.value, t)
        if isinstance(t, T.InfInt):
            return Const(s.value, T.INFINT)
        raise CompileError(pos, f"cannot cast {vt.show()} to {t.show()}")
    if isinstance(t, T.Bits):
        if isinstance(vt, T.BoolT):
            if t.width != 1 or t.signed:  # as p4c: only bit<1>
                raise CompileError(pos, f"cannot cast bool to {t.show()} (only to bit<1>)")
            return RV(to_data(s), t)
        if isinstance(vt, T.Bits):
            if vt.signed != t.signed and vt.width != t.width:  # p4c: sign or width, not both
                raise CompileError(
                    pos,
                    f"cannot cast {vt.show()} to {t.show()} (change the width and the sign in two casts)",
                )
            if vt.width <= t.width and vt.signed == t.signed:
                return RV(s.json, t)
            if not vt.signed and not t.signed:
                return RV(masked(s.json, t), t)
            return RV(masked(s.json, t), t)
        if isinstance(vt, T.EnumT) and vt.underlying is not None:
            return cast(RV(s.json, vt.underlying), t, pos)
    if isinstance(t, T.BoolT) and isinstance(vt, T.Bits) and vt.width == 1:
        return RV(to_bool(s), T.BOOL, boolean=True)
    if isinstance(t, T.BoolT) and isinstance(vt, T.BoolT):
        return s
    if isinstance(t, T.EnumT) and t.underlying is not None and isinstance(vt, T.Bits):
        return RV(cast(s, t.underlying, pos).json, t)  # type: ignore[union-attr,attr-defined]
    raise CompileError(pos, f"cannot cast {vt.show()} to {t.show()}")


# ------------------------------------------------------------------ members / indexing
def member(base: Value, name: str, pos: Pos, ctx: Ctx) -> Value:
    if isinstance(base, UnionStackRef) or getattr(base, "kind", "") == union_stacks.NEXT:
        return union_stacks.member(base, name, pos)
    if isinstance(base, ObjRef):
        if base.kind == "errors":
            code = ctx.env.error_code(name)
            if code is None:
                raise CompileError(pos, f"error.{name} is not declared")
            return Const(code, T.ERROR)
        if base.kind == "type" and isinstance(base.type, T.StructT) and name in SIZE_METHODS:
            return ObjRef("method", name, base, T.VOID, None)
        if base.kind == "type" and isinstance(base.type, T.EnumT):
            v = base.type.value(name)
            if v is None:
                raise CompileError(pos, f"enum {base.type.name} has no member '{name}'")
            return Const(v, base.type)
        return ObjRef("method", name, base, T.VOID, None)
    if isinstance(base, HeaderRef):
        ft = base.type.field_type(name)
        if ft is None and (name in ("isValid", "setValid", "setInvalid") or name in SIZE_METHODS):
            return ObjRef("method", name, base, T.VOID, None)
        if ft is None:
            raise CompileError(pos, f"header {base.type.name} has no field '{name}'")
        if base.dyn is not None and base.name.endswith(".last"):
            return RV(
                {"type": "stack_field", "value": [base.name[: -len(".last")], name]},
                ft,
                lvalue=True,
            )
        if base.dyn is not None:
            off = [n for n, _ in base.type.fields].index(name)
            j = {
                "type": "expression",
                "value": {"op": "access_field", "left": base.dyn, "right": off},
            }
            return RV(j, ft, lvalue=True)
        return RV({"type": "field", "value": [base.name, name]}, ft, lvalue=True)
    if isinstance(base, StructRef):
        if name not in base.fields:
            raise CompileError(pos, f"struct {base.type.name} has no field '{name}'")
        return base.fields[name]
    if isinstance(base, UnionRef):
        if name == "isValid":
            return ObjRef("method", name, base, T.VOID, None)
        if name not in base.members:
            raise CompileError(pos, f"header_union {base.type.name} has no member '{name}'")
        return base.members[name]
    if isinstance(base, StackRef):
        if name == "size":
            return Const(base.type.size, T.Bits(32))
        if name in ("last", "lastIndex") and ctx.where != "parser":  # as p4c
            raise CompileError(pos, f"'{name}' of a header stack can only be used in a parser")
        if name in ("next", "last", "lastIndex", "nextIndex"):
            stack = {"type": "header_stack", "value": base.name}
            idx = expr_json("last_stack_index", None, stack)
            if name == "lastIndex":
                return RV(idx, T.Bits(32))
            if name == "last":
                dyn = expr_json("dereference_header_stack", stack, idx)
                assert isinstance(base.type.elem, T.StructT)
                return HeaderRef(f"{base.name}.last", base.type.elem, dyn)
            return ObjRef("stack_next", base.name, base, base.type.elem)
        return ObjRef("method", name, base, T.VOID, None)
    if isinstance(base, ListV) and base.names and name in base.names:
        return base.items[base.names.index(name)]
    raise CompileError(pos, f"value of type {base.type.show()} has no member '{name}'")


def index(base: Value, idx: A.Expr, pos: Pos, ctx: Ctx) -> Value:
    if isinstance(base, ListV):  # a tuple: constant indices only
        k = const_int(idx, ctx, "tuple index")
        if not 0 <= k < len(base.items):
            raise CompileError(idx.pos, f"index {k} out of bounds for {base.type.show()}")
        return base.items[k]
    if not isinstance(base, StackRef | UnionStackRef):
        raise CompileError(pos, "indexing needs a header stack")
    i = lower(idx, ctx, T.Bits(32))
    if isinstance(base, UnionStackRef):
        return union_stacks.element(base, i, idx.pos)
    if isinstance(i, Const):
        if not 0 <= i.value < base.type.size:
            raise CompileError(
                idx.pos, f"index {i.value} out of bounds for stack of size {base.type.size}"
            )
        return base.elems[i.value]
    s = scalar(i, pos)
    assert isinstance(base.type.elem, T.StructT)
    dyn = expr_json(
        "dereference_header_stack", {"type": "header_stack", "value": base.name}, to_data(s)
    )
    return HeaderRef(f"{base.name}[?]", base.type.elem, dyn)


def const_int(e: A.Expr, ctx: Ctx, what: str) -> int:
    v = lower(e, ctx)
    if not isinstance(v, Const):
        raise CompileError(e.pos, f"{what} must be a compile-time constant")
    return v.value


def slice_read(e: A.Slice, ctx: Ctx) -> Value:
    base = scalar(lower(e.expr, ctx), e.pos)
    hi, lo = const_int(e.hi, ctx, "slice bound"), const_int(e.lo, ctx, "slice bound")
    bt = base.type
    w = T.width_of(bt) if isinstance(bt, T.Bits) else None
    if w is None:
        if isinstance(base, Const) and isinstance(bt, T.InfInt):
            w = max(hi + 1, 1)
        else:
            raise CompileError(e.pos, f"cannot slice a value of type {bt.show()}")
    if not (0 <= lo <= hi < w):
        raise CompileError(e.pos, f"slice [{hi}:{lo}] out of range for {w}-bit value")
    t = T.Bits(hi - lo + 1)
    if isinstance(base, Const):
        return Const((base.value >> lo) & mask(t.width), t)
    j = base.json
    if lo:
        j = expr_json(">>", j, hexv(lo))
    part = (base.json, lo, w) if base.lvalue else None  # an out/inout argument writes it back
    return RV(expr_json("&", j, hexv(mask(t.width), t.width)), t, slice_of=part)


# ------------------------------------------------------------------ operators
def unary(e: A.Unary, ctx: Ctx, expected: T.Type | None) -> Value:
    v = scalar(lower(e.expr, ctx, expected), e.pos)
    t = v.type
    if e.op == "!":
        if not isinstance(t, T.BoolT):
            raise CompileError(e.pos, f"'!' needs a bool operand, found {t.show()}")
        if isinstance(v, Const):
            return Const(0 if v.value else 1, T.BOOL)
        return RV(expr_json("not", None, to_bool(v)), T.BOOL, boolean=True)
    if not isinstance(t, T.Bits | T.InfInt):
        raise CompileError(e.pos, f"'{e.op}' needs an integer operand, found {t.show()}")
    if isinstance(v, Const):
        if e.op == "~":
            if isinstance(t, T.InfInt):
                raise CompileError(e.pos, "'~' needs an operand of known width")
            return Const(wrap(~v.value, t), t)
        return Const(wrap(-v.value, t), t)
    if e.op == "~":
        return RV(masked(expr_json("~", None, v.json), t), t)
    return RV(masked(expr_json("-", hexv(0), v.json), t), t)


_ARITH = {"+", "-", "*", "/", "%", "&", "|", "^", "|+|", "|-|"}
_CMP = {"==", "!=", "<", "<=", ">", ">="}


def operands(left: A.Expr, right: A.Expr, ctx: Ctx) -> tuple[Value, Value]:
    """Both operands of a binary operator, in order (see ``in_order``)."""
    a, b = in_order([left, right], ctx)
    return a, b


def in_order(exprs: list[A.Expr], ctx: Ctx) -> list[Value]:
    """Lower ``exprs`` left to right: when lowering one emits primitives (a call writing its
    arguments), the scalars read before it are copied into temporaries ahead of them."""
    out: list[Value] = []
    for e in exprs:
        n = len(ctx.prims)
        v = lower(e, ctx)
        if len(ctx.prims) > n:
            for k, a in enumerate(out):
                if isinstance(a, RV) and T.width_of(a.type) is not None:
                    tmp = ctx.temp(a.type, exprs[k].pos)
                    ctx.emit("assign", [tmp.json, to_data(a)], exprs[k].pos)
                    _insert_prim(ctx, n, ctx.prims.pop())
                    n += 1
                    out[k] = RV(tmp.json, a.type)
        out.append(v)
    return out


def _insert_prim(ctx: Ctx, n: int, prim: dict[str, Any]) -> None:
    """Insert ``prim`` at index ``n``, moving the targets of the jumps it shifts."""
    for p in ctx.prims[n:]:
        if p["op"] in ("_jump", "_jump_if_zero"):
            target = p["parameters"][-1]
            p["parameters"][-1] = hexv(int(target["value"], 16) + 1)
    ctx.prims.insert(n, prim)


def binary(e: A.Binary, ctx: Ctx, expected: T.Type | None) -> Value:
    op = e.op
    if op in ("&&", "||"):
        a = scalar(lower(e.left, ctx), e.left.pos)
        b = scalar(lower(e.right, ctx), e.right.pos)
        for x, sub in ((a, e.left), (b, e.right)):
            if not isinstance(x.type, T.BoolT):
                raise CompileError(sub.pos, f"'{op}' needs bool operands, found {x.type.show()}")
        if isinstance(a, Const):
            if (op == "&&" and not a.value) or (op == "||" and a.value):
                return a
            return b
        return RV(
            expr_json("and" if op == "&&" else "or", to_bool(a), to_bool(b)), T.BOOL, boolean=True
        )
    if op in ("&&&", ".."):
        raise CompileError(e.pos, f"'{op}' is only allowed in keysets")
    if op in ("<<", ">>"):
        # p4c shifts an untyped constant in infinite precision: 0x1234 >> 4 is 0x123
        untyped = untyped_literal(e.left) or int_constant(e.left, ctx)
        a = scalar(lower(e.left, ctx, None if untyped else expected), e.left.pos)
        return shift(e, a, scalar(lower(e.right, ctx), e.right.pos))
    if op == "++":
        return concat(
            e, scalar(lower(e.left, ctx), e.left.pos), scalar(lower(e.right, ctx), e.right.pos)
        )
    la, lb = operands(e.left, e.right, ctx)
    if op in ("==", "!=") and (whole := aggregate_equality(la, lb, op, e.pos)) is not None:
        return whole
    a = scalar(la, e.left.pos)
    b = scalar(lb, e.right.pos)
    a, b, t = unify(a, b, e.pos, op)
    if op in _CMP:
        if op not in ("==", "!=") and not isinstance(t, T.Bits | T.InfInt):
            raise CompileError(e.pos, f"'{op}' needs integer operands, found {t.show()}")
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(int(fold_compare(op, a.value, b.value)), T.BOOL)
        return RV(expr_json(op, to_data(a), to_data(b)), T.BOOL, boolean=True)
    if op in _ARITH:
        if not isinstance(t, T.Bits | T.InfInt):
            raise CompileError(e.pos, f"'{op}' needs integer operands, found {t.show()}")
        if isinstance(a, Const) and isinstance(b, Const):
            return fold_consts(e, a, b, t)
        if isinstance(t, T.InfInt):
            raise CompileError(e.pos, "untyped constant in a run-time expression; give it a width")
        if op in ("/", "%"):  # as p4c: with what is known of local variables
            resolve = lambda r: resolve_type(ctx.env, r, const_eval)  # noqa: E731
            return div_mod(e, a, b, t, Known(ctx, lower, coerce, resolve))
        if op in ("|+|", "|-|"):
            inner = expr_json("+" if op == "|+|" else "-", to_data(a), to_data(b))
            return RV(expr_json("sat_cast" if t.signed else "usat_cast", inner, hexv(t.width)), t)
        j = expr_json(op, to_data(a), to_data(b))
        if op in ("+", "-", "*"):
            j = masked(j, t)
        return RV(j, t)
    raise CompileError(e.pos, f"unsupported operator '{op}'")


def ternary(e: A.Ternary, ctx: Ctx, expected: T.Type | None) -> Value:
    c = scalar(lower(e.cond, ctx), e.cond.pos)
    if not isinstance(c.type, T.BoolT):
        raise CompileError(e.cond.pos, f"condition must be bool, found {c.type.show()}")
    # an arm's type comes from the other arm (``c ? 2 : 3w1`` is bit<3>), the context's only
    # when both are untyped
    a = scalar(lower(e.then, ctx), e.then.pos)
    b = scalar(lower(e.other, ctx), e.other.pos)
    a, b, t = unify(a, b, e.pos, "?:")
    if isinstance(c, Const):
        return a if c.value else b
    if isinstance(t, T.InfInt):  # p4c: "Width must be specified for at least one of ..."
        raise CompileError(e.pos, "untyped constants in both arms of '?:'; give one a width")
    if isinstance(t, T.BoolT):
        j = expr_json("?", to_data(a), to_data(b), cond=to_bool(c))
        return RV(j, t)
    return RV(expr_json("?", to_data(a), to_data(b), cond=to_bool(c)), t)
