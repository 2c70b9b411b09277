"""Header-union stacks (``header_union_stacks`` of a BMv2 JSON program).

A union stack is a stack whose elements are header unions: each element has one slot range
per member header and at most one member valid. p4c-bm2-ss extracts into the next element's
member (``{"type": "union_stack", "value": [stack, member]}``), and ``push_front``/``pop_front``
move whole elements (``{"type": "header_union_stack", ...}``); both behave as BMv2's
``HeaderUnionStack`` (checked against simple_switch 1.15.5): the next index counts extracted
elements, a full stack is ``StackOutOfBounds``, making a member valid invalidates its
siblings, and push/pop *rotate* the elements without invalidating any (unlike header stacks,
and unlike the P4 specification's "the new first elements are invalid").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emulator.target.errors import ProgramError

if TYPE_CHECKING:  # program.Layout builds the union stacks with this module
    from emulator.target.program import HeaderInfo, Layout


@dataclass(frozen=True)
class UnionStackInfo:
    """A header-union stack: member headers of each element, member names, next-index slot."""

    name: str
    elements: tuple[tuple[HeaderInfo, ...], ...]
    members: tuple[str, ...]
    next_slot: int

    def member(self, name: str) -> int:
        """Position of member ``name`` in every element."""
        try:
            return self.members.index(name)
        except ValueError:
            raise ProgramError(f"BMv2 JSON: union stack {self.name} has no member {name}") from None


def union_stacks(doc: dict[str, Any], layout: Layout, first_slot: int) -> dict[str, UnionStackInfo]:
    """The union stacks of ``doc``; their next-index slots start at ``first_slot``."""
    member_names = {
        str(t.get("name")): tuple(str(m[0]) for m in t.get("headers", []))
        for t in doc.get("header_union_types", [])
    }
    by_id = {int(u.get("id", i)): u for i, u in enumerate(doc.get("header_unions", []))}
    out: dict[str, UnionStackInfo] = {}
    for i, us in enumerate(doc.get("header_union_stacks", [])):
        name = str(us.get("name"))
        try:
            unions = [by_id[int(u)] for u in us.get("header_union_ids", [])]
            elements = tuple(
                tuple(layout.by_id[int(h)] for h in u.get("header_ids", [])) for u in unions
            )
        except KeyError as exc:
            raise ProgramError(f"BMv2 JSON: union stack {name}: unknown id {exc}") from None
        members = member_names.get(str(us.get("union_type")), ())
        if not elements or any(len(e) != len(members) for e in elements):
            raise ProgramError(f"BMv2 JSON: union stack {name}: elements do not match its type")
        out[name] = UnionStackInfo(name, elements, members, first_slot + i)
    return out


def _copy_element(f: list[int], dst: tuple[HeaderInfo, ...], src: tuple[HeaderInfo, ...]) -> None:
    for d, s in zip(dst, src):
        f[d.base : d.base + d.span] = f[s.base : s.base + s.span]


def _rotate(f: list[int], us: UnionStackInfo, shift: int) -> None:
    """Element i takes the contents (validity included) of element ``(i - shift) % size``."""
    els = us.elements
    saved = [[f[h.base : h.base + h.span] for h in e] for e in els]
    for i, e in enumerate(els):
        for h, values in zip(e, saved[(i - shift) % len(els)]):
            f[h.base : h.base + h.span] = values


def union_push(f: list[int], us: UnionStackInfo, count: int) -> None:
    """``push_front(count)`` as simple_switch 1.15.5 does it on a union stack: the elements
    rotate up by ``count`` (the last ones come round to the front, still valid)."""
    n = min(count, len(us.elements))
    _rotate(f, us, n)
    f[us.next_slot] = min(f[us.next_slot] + n, len(us.elements))


def union_pop(f: list[int], us: UnionStackInfo, count: int) -> None:
    """``pop_front(count)`` as simple_switch 1.15.5 does it on a union stack: the elements
    rotate down by ``count`` (the first ones come round to the back, still valid)."""
    n = min(count, len(us.elements))
    _rotate(f, us, -n)
    f[us.next_slot] = max(f[us.next_slot] - n, 0)


def union_copy(f: list[int], dst: UnionStackInfo, src: UnionStackInfo) -> None:
    """``dst = src`` (``assign_union_stack``): every element and the next index."""
    for d, s in zip(dst.elements, src.elements):
        _copy_element(f, d, s)
    f[dst.next_slot] = f[src.next_slot]


def extract_plan(
    us: UnionStackInfo, member: str
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """For an extract into ``us.next.member``: the member's base slot in each element, and the
    validity slots of its siblings in each element (to invalidate)."""
    m = us.member(member)
    bases = tuple(e[m].base for e in us.elements)
    siblings = tuple(tuple(h.valid for j, h in enumerate(e) if j != m) for e in us.elements)
    return bases, siblings


#: the functions generated code calls (the decision cache knows they touch only slots)
RUNTIME_FUNCS = (union_push, union_pop, union_copy)
