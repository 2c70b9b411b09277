"""Header-union stacks (``header_union_stacks`` of a BMv2 JSON program).

A union stack is a stack whose elements are header unions: each element has one slot range
per member header and at most one member valid. p4c-bm2-ss extracts into the next element's
member (``{"type": "union_stack", "value": [stack, member]}``), and ``push_front``/``pop_front``
shift whole elements (``{"type": "header_union_stack", ...}``); both behave as BMv2's
``HeaderUnionStack``: the next index counts extracted elements, a full stack is
``StackOutOfBounds``, making a member valid invalidates its siblings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from emulator.target.errors import ProgramError
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


def union_push(f: list[int], us: UnionStackInfo, count: int) -> None:
    """``push_front(count)``: elements move up, the first ``count`` become invalid."""
    els = us.elements
    for i in range(len(els) - 1, -1, -1):
        if i >= count:
            _copy_element(f, els[i], els[i - count])
        else:
            for h in els[i]:
                f[h.valid] = 0
    f[us.next_slot] = min(f[us.next_slot] + count, len(els))


def union_pop(f: list[int], us: UnionStackInfo, count: int) -> None:
    """``pop_front(count)``: elements move down, the last ``count`` become invalid."""
    els = us.elements
    for i in range(len(els)):
        if i + count < len(els):
            _copy_element(f, els[i], els[i + count])
        else:
            for h in els[i]:
                f[h.valid] = 0
    f[us.next_slot] = max(f[us.next_slot] - count, 0)


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
