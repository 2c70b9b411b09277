"""``static_assert(check[, message])``: checked while compiling, as p4c does.

core.p4 declares it as an extern function returning ``bool``; p4c evaluates it in the front
end, so it may initialise a constant (``const bool ok = static_assert(W == 8, "...")``) and
stands for ``true`` once it holds. A check that is false, or not a compile-time constant, is
a compile error at the call.
"""

from __future__ import annotations

from collections.abc import Callable

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, Value
from emulator.p4c.lowering.context import Ctx

Lower = Callable[[A.Expr, Ctx], Value]


def is_static_assert(e: A.Call) -> bool:
    """Whether ``e`` calls core.p4's ``static_assert``."""
    return isinstance(e.func, A.Name) and e.func.name == "static_assert"


def static_assert(e: A.Call, ctx: Ctx, lower: Lower) -> Const:
    """``true`` when the check holds; a compile error at the call otherwise."""
    args = [a.value for a in e.args]
    if not 1 <= len(args) <= 2 or (len(args) == 2 and not isinstance(args[1], A.StrLit)):
        raise CompileError(e.pos, "static_assert takes a bool check and an optional message string")
    check = lower(args[0], ctx)
    if not (isinstance(check, Const) and isinstance(check.type, T.BoolT)):
        raise CompileError(args[0].pos, "static_assert needs a compile-time bool check")
    if not check.value:
        text = f": {args[1].value}" if len(args) == 2 else ""  # type: ignore[attr-defined]
        raise CompileError(e.pos, f"static assertion failed{text}")
    return Const(1, T.BOOL)
