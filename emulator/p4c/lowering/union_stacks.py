"""Header-union stacks (``U[n]`` of a ``header_union U``), lowered as p4c-bm2-ss does.

Each element ``u[i]`` is a header union (``header_unions``) whose members are header
instances ``u[i].m``; the stack itself is a ``header_union_stacks`` entry. Elements are
reached by constant index only (BMv2 has no run-time index into a union stack), ``u.next.m``
is an extract target (``{"type": "union_stack", "value": [u, m]}``) and ``push_front`` /
``pop_front`` act on the whole stack. Making a member valid (``extract``, ``setValid``)
invalidates its siblings: BMv2's header unions do that at run time.
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, ObjRef, UnionStackRef, Value

#: ObjRef kinds: ``u.next`` (before its member is chosen) and ``u.next.m``
NEXT, NEXT_MEMBER = "union_stack_next", "union_stack_member"


def element(base: UnionStackRef, i: Value, pos: Pos) -> Value:
    """``u[i]`` for a constant ``i``."""
    if not isinstance(i, Const):
        raise CompileError(pos, "a header union stack can only be indexed by a constant")
    if not 0 <= i.value < base.type.size:
        raise CompileError(pos, f"index {i.value} out of bounds for stack of size {base.type.size}")
    return base.elems[i.value]


def member(base: Value, name: str, pos: Pos) -> Value:
    """``u.size``, ``u.next``, ``u.next.m`` and the stack's methods."""
    if isinstance(base, ObjRef):  # u.next.m
        assert isinstance(base.type, T.StructT)
        ht = base.type.field_type(name)
        if not isinstance(ht, T.StructT):
            raise CompileError(pos, f"header_union {base.type.name} has no member '{name}'")
        return ObjRef(NEXT_MEMBER, base.name, name, ht)
    assert isinstance(base, UnionStackRef)
    if name == "size":
        return Const(base.type.size, T.Bits(32))
    if name == "next":
        return ObjRef(NEXT, base.name, base, base.type.elem)
    if name in ("push_front", "pop_front"):
        return ObjRef("method", name, base, T.VOID, None)
    raise CompileError(
        pos, f"'{name}' of a header union stack is not supported (size, next, [constant] are)"
    )


def extract_target(target: Value) -> tuple[dict[str, Any], T.StructT] | None:
    """The extract parameter and header type for ``u.next.m``, else None."""
    if isinstance(target, ObjRef) and target.kind == NEXT_MEMBER:
        assert isinstance(target.type, T.StructT)
        return {"type": "union_stack", "value": [target.name, target.decl]}, target.type
    return None


def stack_json(base: UnionStackRef) -> dict[str, Any]:
    """The stack as a primitive parameter (``push``, ``pop``, ``assign_union_stack``)."""
    return {"type": "header_union_stack", "value": base.name}
