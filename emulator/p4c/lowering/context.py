"""The lowering context: scope, primitive sink, and the hooks that lower calls and externs.

Generic lowering never imports an architecture: extern instances, extern methods and
extern functions go through ``ctx.arch`` (e.g. v1model), calls through ``ctx.calls``; the
compiler driver injects both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.env import Env, Scope
from emulator.p4c.frontend.values import RV, ObjRef, Value

CallLowering = Callable[["Ctx", A.Call, bool], Value]


class Architecture(Protocol):
    """What an architecture (v1model) lowers for generic code: its externs and functions."""

    def declare_instance(self, ctx: Ctx, inst: A.Instance, cp_name: str) -> ObjRef:
        """Emit the JSON object for an extern instance and return its reference."""
        ...

    def extern_method(self, ctx: Ctx, call: A.Call, base: ObjRef, name: str, pos: Pos) -> Value:
        """Lower ``base.name(...)`` on an extern object (packet_in/out included)."""
        ...

    def extern_function(
        self, ctx: Ctx, call: A.Call, name: str, decls: list[A.ExternDecl], pos: Pos
    ) -> Value:
        """Lower a call of an extern function."""
        ...


class Ctx:
    """Where an expression is lowered: scope, primitive sink and block kind."""

    def __init__(self, env: Env, scope: Scope, where: str, prefix: str = "") -> None:
        self.env = env
        self.scope = scope
        self.where = where  # 'global' 'parser' 'control' 'action'
        self.prefix = prefix  # control/parser name for control-plane names
        self.prims: list[dict[str, Any]] = []
        self.calls: CallLowering | None = None  # None: calls are not allowed (constants)
        self.arch: Architecture | None = None
        self.returns: list[int] | None = None  # jumps a ``return`` patches to the end
        self.func_result: Value | None = None  # where a function's ``return e`` stores e
        self.subst: Callable[[A.Name], Value] | None = None  # const_flow: names -> values

    def fresh(self, scope: Scope, where: str, prefix: str) -> Ctx:
        """A new context with its own primitive list, sharing this one's hooks."""
        c = Ctx(self.env, scope, where, prefix)
        c.calls = self.calls
        c.arch = self.arch
        return c

    def child(self, where: str | None = None) -> Ctx:
        """A nested scope that emits into the same primitive list."""
        c = self.fresh(Scope(self.scope), where or self.where, self.prefix)
        c.prims = self.prims
        c.returns = self.returns
        c.func_result = self.func_result
        return c

    def emit(self, op: str, params: list[Any], pos: Pos | None = None) -> None:
        p: dict[str, Any] = {"op": op, "parameters": params}
        if pos is not None:
            p["source_info"] = {
                "filename": pos.file,
                "line": pos.line,
                "column": pos.col,
                "source_fragment": op,
            }
        self.prims.append(p)

    def temp(self, t: T.Type, pos: Pos, hint: str = "tmp") -> RV:
        return self.env.add_scalar(hint, t, pos)

    def architecture(self, pos: Pos) -> Architecture:
        """The injected architecture; a compile error where none is (constant expressions)."""
        if self.arch is None:
            raise CompileError(pos, "extern objects are not allowed in constant expressions")
        return self.arch
