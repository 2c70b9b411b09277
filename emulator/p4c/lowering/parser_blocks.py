"""Parser lowering: states, parser ops, select transitions (masks, ranges, value sets)."""

from __future__ import annotations

from itertools import product
from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.frontend.env import Scope, source_info
from emulator.p4c.frontend.values import (
    RV,
    Const,
    HeaderRef,
    ListV,
    ObjRef,
    Value,
    as_expression,
    expr_json,
    hexstr,
    hexv,
    mask,
    to_bool,
    to_data,
)  # fmt: skip
from emulator.p4c.lowering import union_stacks
from emulator.p4c.lowering.calls import VOID, args_of
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import coerce, const_eval, lower, scalar
from emulator.p4c.lowering.parser_stores import without_dead_stores
from emulator.p4c.lowering.restore_args import invalidate_out
from emulator.p4c.lowering.stmts import lower_stmt
from emulator.p4c.lowering.sub_controls import bind_ctor_args


def _parser_op(ctx: Ctx, op: str, params: list[Any]) -> None:
    ctx.prims.append({"op": op, "parameters": params, "__parser_op": True})


def packet_in_method(ctx: Ctx, call: A.Call, name: str, pos: Pos) -> Value:
    if ctx.where != "parser":
        raise CompileError(pos, f"packet_in.{name} is only allowed in a parser")
    if name == "extract":
        args = args_of(call, ["hdr", "variableFieldSizeInBits"], pos, "extract", optional=1)
        target = lower(args[0], ctx)
        if isinstance(target, ObjRef) and target.kind == "dontcare" and len(call.type_args) == 1:
            t = resolve_type(ctx.env, call.type_args[0], const_eval)  # extract<T>(_): skip a T
            if isinstance(t, T.StructT) and t.kind == "header":
                target = ctx.env.allocate(ctx.env.unique(f"{t.name}_skipped"), t, pos)
        p0: dict[str, Any]
        ht: T.Type
        in_union_stack = union_stacks.extract_target(target)
        if in_union_stack is not None:
            p0, ht = in_union_stack
        elif isinstance(target, ObjRef) and target.kind == "stack_next":
            p0 = {"type": "stack", "value": target.name}
            ht = target.type
        elif isinstance(target, HeaderRef) and target.dyn is None:
            p0 = {"type": "regular", "value": target.name}
            ht = target.type
        else:
            raise CompileError(
                args[0].pos, "extract needs a header, stack.next or stack.next.member"
            )
        assert isinstance(ht, T.StructT)
        has_vl = any(isinstance(t, T.Varbit) for _, t in ht.fields)
        if len(args) == 2:
            if not has_vl:
                raise CompileError(pos, "two-argument extract needs a header with a varbit field")
            n = scalar(lower(args[1], ctx, T.Bits(32)), args[1].pos)
            _parser_op(ctx, "extract_VL", [p0, as_expression(to_data(n))])
        else:
            if has_vl:
                raise CompileError(
                    pos, "a header with a varbit field needs extract(hdr, size_in_bits)"
                )
            _parser_op(ctx, "extract", [p0])
        return VOID
    if name == "lookahead":
        args_of(call, [], pos, "lookahead")
        if len(call.type_args) != 1:
            raise CompileError(pos, "lookahead needs one type argument, e.g. lookahead<bit<16>>()")
        t = resolve_type(ctx.env, call.type_args[0], const_eval)
        if isinstance(t, T.Bits):
            return RV({"type": "lookahead", "value": [0, t.width]}, t)
        if isinstance(t, T.StructT) and t.kind == "header":
            return _lookahead_header(ctx, t, pos)
        raise CompileError(pos, f"lookahead of {t.show()} is not supported")
    if name == "advance":
        (a,) = args_of(call, ["sizeInBits"], pos, "advance")
        n = scalar(lower(a, ctx, T.Bits(32)), a.pos)
        _parser_op(ctx, "advance", [to_data(n)])
        return VOID
    raise CompileError(pos, f"packet_in.{name} is not supported")


def _lookahead_header(ctx: Ctx, t: T.StructT, pos: Pos) -> ListV:
    """``lookahead<H>()``: the next bits of H's width read once into a temporary (as p4c
    does), each field a slice of it, so ``lookahead<H>().f`` works inside expressions."""
    widths = [T.width_of(ft) for _, ft in t.fields]
    if any(w is None or not isinstance(ft, T.Bits) for w, (_, ft) in zip(widths, t.fields)):
        raise CompileError(pos, f"lookahead of {t.show()}: only bit<W>/int<W> fields are supported")
    total = sum(w or 0 for w in widths)
    tmp = ctx.temp(T.Bits(total), pos, "lookahead")
    _parser_op(ctx, "set", [tmp.json, {"type": "lookahead", "value": [0, total]}])
    items: list[Value] = []
    off = total
    for (_, ft), w in zip(t.fields, widths):
        assert isinstance(ft, T.Bits) and w is not None
        off -= w
        j = expr_json(">>", tmp.json, hexv(off)) if off else tmp.json
        j = expr_json("&", j, hexv(mask(w), w))
        items.append(RV(expr_json("two_comp_mod", j, hexv(w)) if ft.signed else j, ft))
    return ListV(items, t, [n for n, _ in t.fields])


def verify_call(ctx: Ctx, call: A.Call, pos: Pos) -> None:
    if ctx.where != "parser":
        raise CompileError(pos, "verify is only allowed in a parser")
    c, e = args_of(call, ["check", "toSignal"], pos, "verify")
    cv = scalar(lower(c, ctx), c.pos)
    if not isinstance(cv.type, T.BoolT):
        raise CompileError(c.pos, "verify needs a bool condition")
    ev = scalar(lower(e, ctx), e.pos)
    if not isinstance(ev.type, T.ErrorT):
        raise CompileError(e.pos, "verify needs an error value")
    _parser_op(ctx, "verify", [to_bool(cv), to_data(ev)])


def _ops(prims: list[dict[str, Any]], pos: Pos) -> list[dict[str, Any]]:
    ops = []
    for p in prims:
        if p.pop("__parser_op", False):
            ops.append(p)
        elif p["op"] == "assign":
            ops.append({"op": "set", "parameters": p["parameters"]})
        elif p["op"] in ("_jump", "_jump_if_zero"):
            raise CompileError(pos, "if statements in parser states are not supported (use select)")
        else:
            ops.append({"op": "primitive", "parameters": [p]})
    return ops


def lower_parser(decl: A.ParserDecl, ctx: Ctx, name: str = "parser") -> dict[str, Any]:
    """Lower a parser (params already bound in ``ctx.scope``) to a ``parsers`` entry."""
    ctx.prims = []
    states: list[dict[str, Any]] = []
    init = _ParserInliner(ctx.env, states).lower(decl, ctx, "", None)
    return {"name": name, "id": 0, "init_state": init, "parse_states": states}


class _ParserInliner:
    """Lowers a parser's states; sub-parser ``apply`` calls are inlined as extra states."""

    def __init__(self, env: Any, states: list[dict[str, Any]]) -> None:
        self.env = env
        self.states = states

    def lower(self, decl: A.ParserDecl, ctx: Ctx, prefix: str, accept: str | None) -> str:
        """Emit ``decl``'s states (names prefixed) and return its start state name."""
        for loc in decl.locals:
            if isinstance(loc, A.ValueSetDecl):
                self._value_set(decl, loc, ctx)
            elif isinstance(loc, A.Instance):
                inst = ctx.architecture(loc.pos).declare_instance(
                    ctx, loc, f"{decl.name}.{loc.name}"
                )
                if inst.kind == "subblock":
                    inst.extra["decl_ctx"] = ctx  # where its constructor arguments are lowered
                ctx.scope.bind(loc.name, inst)
            else:
                lower_stmt(loc, ctx)
        init_prims = list(ctx.prims)
        ctx.prims.clear()
        names = {s.name for s in decl.states}
        if "start" not in names:
            raise CompileError(decl.pos, f"parser {decl.name} has no start state")
        rename = {n: self.env.unique(prefix + n) if prefix else n for n in names}
        for n in rename.values():
            self.env.names_used.add(n)
        self.rename, self.accept = rename, accept
        graph = {s.name: s for s in decl.states}
        for s in decl.states:
            if s.name in ("accept", "reject"):
                raise CompileError(s.pos, f"state '{s.name}' cannot be redefined")
            sctx = ctx.child()
            sctx.prims = list(init_prims) if s.name == "start" else []
            stmts = without_dead_stores(list(s.stmts), s, graph)
            self._state(rename[s.name], stmts, s, sctx, rename, accept)
        return rename["start"]

    def _state(
        self,
        name: str,
        stmts: list[A.Stmt],
        s: A.StateDecl,
        ctx: Ctx,
        rename: dict[str, str],
        accept: str | None,
        goto: str | None = None,
    ) -> None:
        """Emit state ``name`` for ``stmts``; it ends with ``s``'s transition, or jumps to
        ``goto`` (the rest of a state split by an ``if`` or a sub-parser call)."""
        for i, st in enumerate(stmts):
            if isinstance(st, A.Switch):
                raise CompileError(
                    st.pos, "switch statements in parser states are not supported (use select)"
                )
            if isinstance(st, A.Block):
                self._state(name, [*st.stmts, *stmts[i + 1 :]], s, ctx, rename, accept, goto)
                return
            if isinstance(st, A.If):
                self._split_if(name, st, stmts[i + 1 :], s, ctx, rename, accept, goto)
                return
            sub = self._sub_apply(st, ctx)
            if sub is None:
                lower_stmt(st, ctx)
                continue
            sdecl, sctx, inst = sub
            cont = self.env.unique(f"{name}_after_{inst}")
            start = _ParserInliner(self.env, self.states).lower(sdecl, sctx, f"{inst}_", cont)
            self._emit(
                name,
                ctx,
                [],
                [{"type": "default", "value": None, "mask": None, "next_state": start}],
                s.pos,
            )
            nctx = ctx.child()
            nctx.prims = []
            self._state(cont, stmts[i + 1 :], s, nctx, rename, accept, goto)
            return
        if goto is not None:
            default = {"type": "default", "value": None, "mask": None, "next_state": goto}
            self._emit(name, ctx, [], [default], s.pos)
            return
        names = set(rename)
        key, transitions = _transition(s, ctx, names)
        for t in transitions:
            if t["next_state"] is not None:
                t["next_state"] = rename[t["next_state"]]
            elif t.pop("_accept", False):
                t["next_state"] = accept
        self._emit(name, ctx, key, transitions, s.pos)

    def _split_if(
        self,
        name: str,
        st: A.If,
        rest: list[A.Stmt],
        s: A.StateDecl,
        ctx: Ctx,
        rename: dict[str, str],
        accept: str | None,
        goto: str | None,
    ) -> None:
        """``if`` in a parser state: select on the condition into then/else states that
        continue in a state holding the rest of the original state."""
        c = scalar(lower(st.cond, ctx), st.cond.pos)
        if not isinstance(c.type, T.BoolT):
            raise CompileError(st.cond.pos, f"condition must be bool, found {c.type.show()}")
        branches = {True: _stmts_of(st.then), False: _stmts_of(st.other)}
        if isinstance(c, Const):
            self._state(name, [*branches[bool(c.value)], *rest], s, ctx, rename, accept, goto)
            return
        tmp = ctx.temp(T.Bits(1), st.cond.pos, "cond")
        _parser_op(ctx, "set", [tmp.json, to_data(c)])
        cont = self.env.unique(f"{name}_cont")
        then_state = self.env.unique(f"{name}_then")
        else_state = self.env.unique(f"{name}_else") if branches[False] else cont
        transitions = [
            {"type": "hexstr", "value": "0x01", "mask": None, "next_state": then_state},
            {"type": "default", "value": None, "mask": None, "next_state": else_state},
        ]
        self._emit(name, ctx, [tmp.json], transitions, st.pos)
        for state, body in ((then_state, branches[True]), (else_state, branches[False])):
            if state == cont:
                continue
            bctx = ctx.child()
            bctx.prims = []
            self._state(state, body, s, bctx, rename, accept, cont)
        nctx = ctx.child()
        nctx.prims = []
        self._state(cont, rest, s, nctx, rename, accept, goto)

    def _emit(self, name: str, ctx: Ctx, key: list[Any], transitions: list[Any], pos: Pos) -> None:
        for t in transitions:
            t.pop("_accept", None)
        self.states.append(
            {
                "name": name,
                "id": len(self.states),
                "parser_ops": _ops(ctx.prims, pos),
                "transitions": transitions,
                "transition_key": key,
            }
        )

    def _sub_apply(self, st: A.Stmt, ctx: Ctx) -> tuple[A.ParserDecl, Ctx, str] | None:
        if not (
            isinstance(st, A.CallStmt)
            and isinstance(st.call.func, A.Member)
            and st.call.func.name == "apply"
        ):
            return None
        base = lower(st.call.func.expr, ctx)
        if not (isinstance(base, ObjRef) and base.kind == "subblock"):
            return None
        sdecl = base.decl
        if not isinstance(sdecl, A.ParserDecl):
            raise CompileError(st.pos, "only parsers can be applied in a parser state")
        if len(st.call.args) != len(sdecl.params):
            raise CompileError(
                st.pos,
                f"parser {sdecl.name} expects {len(sdecl.params)} arguments, got {len(st.call.args)}",
            )
        sctx = ctx.fresh(Scope(self.env.globals), "parser", sdecl.name)
        bind_ctor_args(base, sdecl, sctx, st.pos)
        for p, a in zip(sdecl.params, st.call.args, strict=True):
            t = resolve_type(self.env, p.type, const_eval)
            v = lower(a.value, ctx, t)
            if p.direction == "out":  # its headers start invalid (p4c: a fresh copy)
                invalidate_out(ctx, v, a.value.pos)
            sctx.scope.bind(p.name, v)
        return sdecl, sctx, base.name.split(".")[-1]

    def _value_set(self, decl: A.ParserDecl, loc: A.ValueSetDecl, ctx: Ctx) -> None:
        t = resolve_type(self.env, loc.type, const_eval)
        size = lower(loc.size, ctx)
        w = T.width_of(t) if not isinstance(t, T.StructT) else t.bit_width()
        if w is None or not isinstance(size, Const):
            raise CompileError(
                loc.pos, "value_set needs a bit<W> (or struct of bits) type and constant size"
            )
        vs = self.env.out["parse_vsets"]
        cp = f"{decl.name}.{loc.name}"
        vs.append(
            {
                "name": cp,
                "id": len(vs),
                "source_info": source_info(loc.pos, loc.name),
                "compressed_bitwidth": w,
                "max_size": size.value,
            }
        )
        ctx.scope.bind(loc.name, ObjRef("value_set", cp, loc, t))


def _stmts_of(st: A.Stmt | None) -> list[A.Stmt]:
    if st is None:
        return []
    return list(st.stmts) if isinstance(st, A.Block) else [st]


def _next(state: str, names: set[str], pos: Pos) -> str | None:
    if state in ("accept", "reject"):
        return None
    if state not in names:
        raise CompileError(pos, f"unknown parser state '{state}'")
    return state


def _trans(nxt: str | None, state: str, **kw: Any) -> dict[str, Any]:
    t = {**kw, "next_state": nxt}
    if state == "accept":
        t["_accept"] = True
    return t


def _transition(s: A.StateDecl, ctx: Ctx, names: set[str]) -> tuple[list[Any], list[Any]]:
    tr = s.transition
    if tr is None:
        raise CompileError(s.pos, f"state {s.name} has no transition")
    if tr.select is None:
        return [], [
            _trans(_next(tr.state, names, tr.pos), tr.state, type="default", value=None, mask=None)
        ]
    keys: list[dict[str, Any]] = []
    widths: list[int] = []
    types: list[T.Type] = []
    for k in tr.select:
        v = scalar(lower(k, ctx), k.pos)
        w = T.width_of(v.type)
        if w is None or isinstance(v, Const):
            raise CompileError(k.pos, "select key must be a run-time value of known width")
        j = _stack_field(v.json)
        if j["type"] not in ("field", "lookahead", "stack_field"):
            tmp = ctx.temp(v.type if not isinstance(v.type, T.BoolT) else T.Bits(1), k.pos, "tmp")
            ctx.prims.append(
                {"op": "set", "parameters": [tmp.json, to_data(v)], "__parser_op": True}
            )
            j = tmp.json
        keys.append(j)
        widths.append(w)
        types.append(v.type)
    out = []
    for case in tr.cases:
        nxt = _next(case.state, names, case.pos)
        ks = case.keyset
        if isinstance(ks, A.Name):
            vs = ctx.scope.lookup(ks.name)
            if isinstance(vs, ObjRef) and vs.kind == "value_set":
                out.append(_trans(nxt, case.state, type="parse_vset", value=vs.name, mask=None))
                continue
        if isinstance(ks, A.Default | A.DontCare):  # as p4c: the cases after it are
            out.append(_trans(nxt, case.state, type="default", value=None, mask=None))
            break  # unreachable and dropped (BMv2 would try them first)
        elems = list(ks.items) if isinstance(ks, A.ListExpr) else [ks]
        if len(elems) != len(keys):
            raise CompileError(
                ks.pos, f"keyset has {len(elems)} elements but select has {len(keys)} keys"
            )
        alternatives = [
            _keyset_elem(e, t, w, ctx) for e, t, w in zip(elems, types, widths, strict=True)
        ]
        for combo in product(*alternatives):
            if all(m == 0 for _, m in combo):
                out.append(_trans(nxt, case.state, type="default", value=None, mask=None))
                continue
            val = "".join(hexstr(v, w)[2:] for (v, _), w in zip(combo, widths, strict=True))
            full = all(m == mask(w) for (_, m), w in zip(combo, widths, strict=True))
            msk = (
                None
                if full
                else "0x"
                + "".join(hexstr(m, w)[2:] for (_, m), w in zip(combo, widths, strict=True))
            )
            out.append(_trans(nxt, case.state, type="hexstr", value="0x" + val, mask=msk))
    # No default case: like p4c we add none, so BMv2 accepts on no match (parser_error stays
    # NoError) instead of the P4 spec's reject with error.NoMatch.
    return keys, out


def _stack_field(j: dict[str, Any]) -> dict[str, Any]:
    """``stack.last.f`` in a select key is a BMv2 ``stack_field``."""
    if j.get("type") == "expression" and j["value"].get("op") == "access_field":
        left = j["value"]["left"]["value"]
        if (
            left.get("op") == "dereference_header_stack"
            and left["right"]["value"].get("op") == "last_stack_index"
        ):
            return {"type": "stack_field", "value": [left["left"]["value"], j["value"]["right"]]}
    return j


def _keyset_elem(e: A.Expr, t: T.Type, w: int, ctx: Ctx) -> list[tuple[int, int]]:
    """(value, mask) alternatives for one keyset element."""
    full = mask(w)
    if isinstance(e, A.Default | A.DontCare):
        return [(0, 0)]
    if isinstance(e, A.Binary) and e.op == "&&&":
        v, m = _const(e.left, t, ctx), _const(e.right, t, ctx)
        return [(v & m & full, m & full)]
    if isinstance(e, A.Binary) and e.op == "..":
        lo, hi = _const(e.left, t, ctx), _const(e.right, t, ctx)
        if lo > hi:
            return []
        return range_to_masks(lo, hi, w)
    return [(_const(e, t, ctx) & full, full)]


def _const(e: A.Expr, t: T.Type, ctx: Ctx) -> int:
    v = lower(e, ctx, t if isinstance(t, T.Bits) else None)
    if isinstance(v, ObjRef) and v.kind == "value_set":
        raise CompileError(e.pos, "a value_set must be the whole keyset (not part of a tuple)")
    if not isinstance(v, Const):
        raise CompileError(e.pos, "keyset values must be compile-time constants")
    if isinstance(t, T.Bits):
        v = coerce(v, t, e.pos, "keyset value")  # type: ignore[assignment]
    elif v.type != t and not (isinstance(t, T.EnumT) and v.type is t):
        raise CompileError(
            e.pos, f"type mismatch: keyset value of type {v.type.show()} for key of type {t.show()}"
        )
    return v.value & mask(T.width_of(t) or 64)  # type: ignore[union-attr,attr-defined]


def range_to_masks(lo: int, hi: int, w: int) -> list[tuple[int, int]]:
    """Cover [lo, hi] with value/mask prefixes (as p4c does for select ranges)."""
    out = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << w
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, mask(w) & ~(size - 1)))
        lo += size
    return out
