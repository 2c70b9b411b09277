"""Whether an action's body may change what an argument expression reads.

A directionless or ``in`` argument is bound to the argument's value at the call: p4c
evaluates it there (into a temporary) for a direct call from a control and for an ``in``
parameter. fabemu substitutes the expression where the parameter is used, which gives the
same value unless the body writes a field the expression reads first (``a(h.f + 1)`` with
``h.f = 0`` at the top of ``a``). This conservative check says when a temporary is needed:
an assignment, a method call's arguments and the object of ``setValid``-like methods count
as writes, and so do the out arguments of v1model's extern functions (``EXTERN_WRITES``); a
call of an action or function counts as writing everything.
"""

from __future__ import annotations

from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.ast import expr_text

EVERYTHING = "*"
#: v1model's extern functions: the argument positions each may write (the rest are read)
EXTERN_WRITES: dict[str, tuple[int, ...]] = {
    "mark_to_drop": (0,),
    "hash": (0,),
    "random": (0,),
    "clone": (),
    "clone_preserving_field_list": (),
    "resubmit_preserving_field_list": (),
    "recirculate_preserving_field_list": (),
    "truncate": (),
    "digest": (),
    "log_msg": (),
    "assert": (),
    "assume": (),
}


def _paths(e: A.Expr) -> set[str]:
    """The field paths ``e`` reads (as source text: ``hdr.h.f``)."""
    if isinstance(e, A.Name | A.Member | A.Index):
        return {expr_text(e)}
    out: set[str] = set()
    for n in A.nodes(e):
        if n is not e and isinstance(n, A.Name | A.Member | A.Index):
            out.add(expr_text(n))
    return out


def _written(body: A.Stmt) -> set[str]:
    """What ``body`` may write, as source paths (``EVERYTHING`` for a call it cannot see)."""
    out: set[str] = set()
    for n in A.nodes(body):
        if isinstance(n, A.Assign):
            out.add(expr_text(n.lhs))
        elif isinstance(n, A.Call):
            f = n.func
            if isinstance(f, A.Member):  # obj.method(args): obj and every argument
                if f.name != "isValid":
                    out.add(expr_text(f.expr))
                    out.update(expr_text(a.value) for a in n.args)
            elif isinstance(f, A.Name) and f.name in EXTERN_WRITES:
                out.update(
                    expr_text(n.args[i].value) for i in EXTERN_WRITES[f.name] if i < len(n.args)
                )
            else:  # an action or function: whatever it writes
                out.add(EVERYTHING)
    return out


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith((b + ".", b + "[")) or b.startswith((a + ".", a + "["))


def may_change(body: A.Stmt, arg: A.Expr) -> bool:
    """Whether running ``body`` may change the value of ``arg`` (module docstring)."""
    written = _written(body)
    if EVERYTHING in written:
        return True
    return any(_overlap(w, r) for w in written for r in _paths(arg))
