"""Global declarations: types, constants, errors, enums and externs into the :class:`Env`."""

from __future__ import annotations

from collections.abc import Callable

from emulator.p4c.diagnostics import MAX_WIDTH, CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.env import Env
from emulator.p4c.frontend.values import Const, ListV, ObjRef, Value

#: evaluates a constant expression (set by the compiler to break the import cycle)
ConstEval = Callable[[A.Expr, Env, T.Type | None], Value]


INT1 = (
    "int<1> is not supported on this target: simple_switch cannot hold a 1-bit signed field "
    "(it stops at load: nbits > 1); use bit<1> or int<2>"
)


def resolve_type(
    env: Env, ref: A.TypeRef, const_eval: ConstEval, tparams: dict[str, T.Type] | None = None
) -> T.Type:
    """Turn a written type into a semantic type."""
    k = ref.kind
    if k in ("bit", "int", "varbit"):
        assert ref.width is not None
        w = const_eval(ref.width, env, T.INFINT)
        if not isinstance(w, Const) or w.value <= 0:
            raise CompileError(ref.pos, "type width must be a positive constant")
        if w.value > MAX_WIDTH:
            raise CompileError(ref.pos, f"type width {w.value} is above the limit of {MAX_WIDTH}")
        if k == "varbit":
            return T.Varbit(w.value)
        if k == "int" and w.value < 2:  # p4c accepts it; simple_switch aborts on loading it
            raise CompileError(ref.pos, INT1)
        return T.Bits(w.value, k == "int")
    if k == "infint":
        return T.INFINT
    if k == "bool":
        return T.BOOL
    if k == "error":
        return T.ERROR
    if k == "string":
        return T.STRING
    if k == "void":
        return T.VOID
    if k == "dontcare":
        return T.DontCareT()
    if k == "tuple":
        return T.TupleT(tuple(resolve_type(env, a, const_eval, tparams) for a in ref.args))
    if k == "stack":
        elem = resolve_type(env, ref.args[0], const_eval, tparams)
        assert ref.size is not None
        n = const_eval(ref.size, env, T.INFINT)
        if not isinstance(n, Const) or n.value <= 0:
            raise CompileError(ref.pos, "header stack size must be a positive constant")
        return T.StackT(elem, n.value)
    name = ref.name
    if tparams and name in tparams:
        return tparams[name]
    if name in env.resolved:
        return env.resolved[name]
    decl = env.type_decls.get(name)
    if decl is None:
        raise CompileError(ref.pos, f"unknown type '{name}'")
    if isinstance(decl, A.TypedefDecl):
        t = resolve_type(env, decl.type, const_eval, tparams)
        env.resolved[name] = t
        return t
    if isinstance(decl, A.StructDecl):
        fields = tuple(
            (f.name, resolve_type(env, f.type, const_eval, tparams)) for f in decl.fields
        )
        if decl.kind == "header":
            for fname, ft in fields:
                if not isinstance(ft, (T.Bits, T.Varbit, T.BoolT, T.EnumT)):
                    raise CompileError(
                        decl.pos, f"header field '{fname}' cannot have type {ft.show()}"
                    )
        if decl.kind == "header_union":
            for fname, ft in fields:
                if not (isinstance(ft, T.StructT) and ft.kind == "header"):
                    raise CompileError(decl.pos, f"header_union member '{fname}' must be a header")
        t = T.StructT(decl.kind, name, fields, decl.annotations)
        env.resolved[name] = t
        return t
    if isinstance(decl, A.EnumDecl):
        return env.enums[name]
    kind = {
        A.ExternDecl: "extern",
        A.ParserDecl: "parser",
        A.ControlDecl: "control",
        A.ProtoDecl: "proto",
    }.get(type(decl), "type")
    args = tuple(resolve_type(env, a, const_eval, tparams) for a in ref.args)
    return T.NamedT(kind, name, args)


def declare(env: Env, prog: A.Program, const_eval: ConstEval) -> None:
    """Enter every top-level declaration into ``env.globals``."""
    g = env.globals
    g.bind("error", ObjRef("errors", "error"))
    for d in prog.decls:
        if isinstance(d, A.ErrorDecl):
            for m in d.members:
                if m not in env.errors:
                    env.errors[m] = len(env.errors)
        elif isinstance(d, A.MatchKindDecl):
            env.match_kinds.update(d.members)
        elif isinstance(d, A.StructDecl | A.TypedefDecl):
            _declare_type(env, d.name, d)
        elif isinstance(d, A.EnumDecl):
            _declare_type(env, d.name, d)
            env.enums[d.name] = _enum_type(env, d, const_eval)
            g.bind(d.name, ObjRef("type", d.name, d, env.enums[d.name]))
        elif isinstance(d, A.ExternDecl):
            if d.func is not None:
                prev = g.names.get(d.name)
                if isinstance(prev, ObjRef) and prev.kind == "func":
                    prev.extra.append(d)
                else:
                    g.bind(d.name, ObjRef("func", d.name, d, T.VOID, [d]))
            else:
                _declare_type(env, d.name, d)
        elif isinstance(d, A.ParserDecl | A.ControlDecl | A.ProtoDecl):
            _declare_type(env, d.name, d)
        elif isinstance(d, A.ConstDecl):
            t = resolve_type(env, d.type, const_eval)
            v = const_eval(d.value, env, t)
            if isinstance(v, ListV) and isinstance(t, T.StructT | T.TupleT):
                g.bind(d.name, v)  # a constant struct or tuple (fields are constants)
            elif not isinstance(v, Const):
                raise CompileError(
                    d.value.pos,
                    f"initializer of constant '{d.name}' is not a compile-time constant",
                )
            else:
                g.bind(d.name, Const(v.value, t if not isinstance(t, T.InfInt) else v.type))
        elif isinstance(d, A.ActionDecl):
            g.bind(d.name, ObjRef("action", d.name, d))
        elif isinstance(d, A.FunctionDecl):
            g.bind(d.name, ObjRef("function", d.name, d))
        elif isinstance(d, A.Instance):
            g.bind(d.name, ObjRef("instance", d.name, d))
        elif isinstance(d, A.VarDecl):
            raise CompileError(d.pos, "variables are not allowed at top level (use const)")


def _declare_type(env: Env, name: str, d: A.Stmt) -> None:
    if name in env.type_decls and not isinstance(d, A.ExternDecl):
        raise CompileError(d.pos, f"'{name}' is declared twice")
    env.type_decls[name] = d


def _enum_type(env: Env, d: A.EnumDecl, const_eval: ConstEval) -> T.EnumT:
    under = None
    if d.underlying is not None:
        u = resolve_type(env, d.underlying, const_eval)
        if not isinstance(u, T.Bits):
            raise CompileError(d.pos, "enum underlying type must be bit<W> or int<W>")
        under = u
    members = []
    for i, (m, e) in enumerate(d.members):
        if under is not None:
            if e is None:
                raise CompileError(d.pos, f"serializable enum member '{m}' needs a value")
            v = const_eval(e, env, under)
            if not isinstance(v, Const):
                raise CompileError(e.pos, "enum value must be a constant")
            members.append((m, v.value))
        else:
            members.append((m, i))
    return T.EnumT(d.name, tuple(members), under)
