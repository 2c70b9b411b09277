"""Type parameters of a generic function, bound for one inlined call.

``T pick<T>(in bool c, in T a, in T b)`` is called as ``pick<bit<8>>(...)`` or as
``pick(c, x, y)``, where ``T`` is the type of the first argument written for a parameter
of type ``T`` (as p4c infers it: an untyped constant cannot decide it). While the call is
lowered, each parameter's name resolves to its type: the names are entered in the
environment's table of resolved type names and taken out again afterwards, so the body's
locals, casts and return type see them, and a type of that name outside the function is
hidden only for the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import resolve_type
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import const_eval

_UNSET = object()


class TypeParams:
    """The bindings of one call, kept in the environment's resolved type names:
    ``unbound(ref)`` says whether an argument has still to decide one."""

    def __init__(self, ctx: Ctx, decl: A.FunctionDecl) -> None:
        self.ctx, self.decl = ctx, decl

    def unbound(self, ref: A.TypeRef) -> bool:
        """Whether ``ref`` is a type parameter no argument has bound yet."""
        names = self.decl.type_params
        return ref.kind == "name" and ref.name in names and ref.name not in self.ctx.env.resolved

    def bind(self, name: str, t: T.Type, pos: Pos) -> None:
        if t == T.INFINT:
            raise CompileError(
                pos,
                f"cannot infer type parameter {name} of function {self.decl.name} from an "
                "untyped constant: give it a width or write the type argument",
            )
        self.ctx.env.resolved[name] = t


@contextmanager
def type_params(
    ctx: Ctx, decl: A.FunctionDecl, type_args: tuple[A.TypeRef, ...], pos: Pos
) -> Iterator[TypeParams]:
    """Bind ``decl``'s type parameters (from ``type_args`` when written) while inside."""
    names = decl.type_params
    if type_args and not names:
        raise CompileError(pos, f"function {decl.name} is not generic")
    if type_args and len(type_args) != len(names):
        raise CompileError(
            pos, f"function {decl.name} takes {len(names)} type argument(s), not {len(type_args)}"
        )
    resolved = ctx.env.resolved
    saved = {n: resolved.pop(n, _UNSET) for n in names}
    try:
        for n, ref in zip(names, type_args, strict=False):
            resolved[n] = resolve_type(ctx.env, ref, const_eval)
        yield TypeParams(ctx, decl)
        for n in names:
            if n not in resolved:
                raise CompileError(pos, f"cannot infer type parameter {n} of function {decl.name}")
    finally:
        for n, old in saved.items():
            resolved.pop(n, None)
            if old is not _UNSET:
                resolved[n] = old  # type: ignore[assignment]
