"""Action-selector bookkeeping of one switch: member and group handles, and their diffs.

BMv2 hands out member and group handles from 0 in creation order, and picks a group's
member as ``members_sorted_by_handle[hash % size]``. This module predicts those handles
so that the rendered command files and the uplink a flow takes can both be computed
offline. Members are never deleted; every route owns its group, so a repair only adds
members to or removes members from groups (never touches table entries).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from emulator.control.errors import ControlError
from emulator.control.routes import NextHop, SwitchRoutes

#: the member key of the drop member (used by routes with no live next hop)
DROP = None

MemberKey = NextHop | None


@dataclass(frozen=True)
class Op:
    """One action-profile operation, rendered by the templates."""

    kind: Literal["create_member", "create_group", "add", "remove", "route"]
    member: int = -1
    group: int = -1
    next_hop: NextHop | None = None
    prefix: str = ""


@dataclass
class ProgramState:
    """The members, groups and route entries one switch holds."""

    members: dict[MemberKey, int] = field(default_factory=dict)
    groups: dict[str, int] = field(default_factory=dict)  # prefix -> group handle
    group_members: dict[int, set[int]] = field(default_factory=dict)

    def _member(self, key: MemberKey, ops: list[Op]) -> int:
        if key not in self.members:
            handle = len(self.members)
            self.members[key] = handle
            ops.append(Op("create_member", member=handle, next_hop=key))
        return self.members[key]

    def _desired(self, hops: tuple[NextHop, ...], ops: list[Op]) -> set[int]:
        if not hops:
            return {self._member(DROP, ops)}
        return {self._member(h, ops) for h in hops}

    def program(self, routes: SwitchRoutes) -> list[Op]:
        """Operations that program a fresh switch with ``routes``."""
        if self.members or self.groups:
            raise ControlError(f"switch {routes.name}: program() needs a fresh state")
        ops: list[Op] = []
        self._member(DROP, ops)
        every_hop = {h for r in routes.routes for h in r.next_hops}
        for hop in sorted(every_hop, key=lambda h: (h.port, h.dmac)):
            self._member(hop, ops)
        return ops + self.update(routes)

    def update(self, routes: SwitchRoutes) -> list[Op]:
        """Operations that bring the switch from its current state to ``routes``.

        New members are added before old ones are removed, so no group is ever empty.
        """
        ops: list[Op] = []
        for route in routes.routes:
            want = self._desired(route.next_hops, ops)
            if route.prefix not in self.groups:
                handle = len(self.groups)
                self.groups[route.prefix] = handle
                self.group_members[handle] = set()
                ops.append(Op("create_group", group=handle, prefix=route.prefix))
                new_group = True
            else:
                new_group = False
            group = self.groups[route.prefix]
            have = self.group_members[group]
            for m in sorted(want - have):
                ops.append(Op("add", member=m, group=group, prefix=route.prefix))
            for m in sorted(have - want):
                ops.append(Op("remove", member=m, group=group, prefix=route.prefix))
            self.group_members[group] = set(want)
            if new_group:
                ops.append(Op("route", group=group, prefix=route.prefix))
        return ops

    def selection(self, prefix: str) -> list[NextHop | None]:
        """The group's members in the order the selector indexes them (by handle)."""
        if prefix not in self.groups:
            raise ControlError(f"no group for {prefix}")
        by_handle = {h: key for key, h in self.members.items()}
        return [by_handle[h] for h in sorted(self.group_members[self.groups[prefix]])]
