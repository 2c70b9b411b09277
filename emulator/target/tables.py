"""Match-action tables and action profiles/selectors with BMv2's semantics.

Lookup strategy by table kind:
  exact (and valid) keys  -> one dict
  one lpm key (+ exact)   -> one dict per prefix length, longest first
  ternary/range/optional  -> entries sorted by (priority, handle); smallest priority wins

Action selectors keep each group's members ordered by member handle and pick the
``(hash % group_size)``-th (BMV2-FACTS.md).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.target.errors import CliError
from emulator.target.externs import Meter
from emulator.target.handles import INDEX_MASK, EntryHandles, Handles


def _rank(e: Entry) -> tuple[int, int]:
    """Ternary / range order: priority, then handle (BMv2 looks entries up in this order)."""
    return e.priority, e.handle


def _nothing() -> None:
    pass


@dataclass
class ActionSpec:
    """A compiled action: JSON name and id, parameter (name, width) list, function."""

    name: str
    id: int
    params: list[tuple[str, int]]
    fn: Callable[..., Any]


@dataclass
class Member:
    """An action profile member: an action with its data."""

    handle: int
    action: ActionSpec
    data: tuple[int, ...]


@dataclass
class Group:
    """An action selector group; ``members`` stays sorted by member handle."""

    handle: int
    members: list[Member] = field(default_factory=list)


class ActionProfile:
    """``action_profile`` / ``action_selector``: members, groups and the selector hash."""

    def __init__(self, name: str, selector: Callable[..., int] | None = None) -> None:
        self.name = name
        self.selector = selector
        self.members: dict[int, Member] = {}
        self.groups: dict[int, Group] = {}
        self._member_handles = Handles()
        self._group_handles = Handles()
        self.changed: Callable[[], None] = _nothing  # the decision cache's flush

    def reset_state(self) -> None:
        """No members or groups, handles from 0 (BMv2's ``reset_state``)."""
        self.changed()
        self.members.clear()
        self.groups.clear()
        self._member_handles, self._group_handles = Handles(), Handles()

    def create_member(self, action: ActionSpec, data: tuple[int, ...]) -> int:
        """Add a member; return its handle."""
        self.changed()
        h = self._member_handles.get()
        self.members[h] = Member(h, action, data)
        return h

    def delete_member(self, handle: int, used: bool = False) -> None:
        """Remove a member that no group uses (``used``: a table entry refers to it)."""
        self.changed()
        m = self.member(handle)
        if any(m in g.members for g in self.groups.values()):
            raise CliError(f"action profile {self.name}: member {handle} is in a group")
        if used:
            raise CliError(
                f"action profile {self.name}: member {handle} is used by a table "
                "entry (MBR_STILL_USED)"
            )
        del self.members[handle]
        self._member_handles.release(handle)

    def modify_member(self, handle: int, action: ActionSpec, data: tuple[int, ...]) -> None:
        """Give member ``handle`` another action and data (groups keep referring to it)."""
        self.changed()
        m = self.member(handle)
        m.action, m.data = action, data

    def create_group(self) -> int:
        """Add an empty group; return its handle."""
        self.changed()
        if self.selector is None:
            raise CliError(f"action profile {self.name} has no selector: groups not allowed")
        h = self._group_handles.get()
        self.groups[h] = Group(h)
        return h

    def delete_group(self, handle: int, used: bool = False) -> None:
        """Remove a group (``used``: a table entry refers to it, which is refused)."""
        self.changed()
        self.group(handle)
        if used:
            raise CliError(
                f"action profile {self.name}: group {handle} is used by a table "
                "entry (GRP_STILL_USED)"
            )
        del self.groups[handle]
        self._group_handles.release(handle)

    def add_to_group(self, member: int, group: int) -> None:
        """Put member ``member`` in group ``group`` (kept ordered by member handle)."""
        self.changed()
        m, g = self.member(member), self.group(group)
        if m in g.members:
            raise CliError(f"action profile {self.name}: member {member} already in group {group}")
        g.members.append(m)
        g.members.sort(key=lambda x: x.handle)

    def remove_from_group(self, member: int, group: int) -> None:
        """Take member ``member`` out of group ``group``."""
        self.changed()
        m, g = self.member(member), self.group(group)
        if m not in g.members:
            raise CliError(f"action profile {self.name}: member {member} not in group {group}")
        g.members.remove(m)

    def member(self, handle: int) -> Member:
        """The member with ``handle`` (CliError if absent)."""
        try:
            return self.members[handle]
        except KeyError:
            raise CliError(f"action profile {self.name}: invalid member handle {handle}") from None

    def group(self, handle: int) -> Group:
        """The group with ``handle`` (CliError if absent)."""
        try:
            return self.groups[handle]
        except KeyError:
            raise CliError(f"action profile {self.name}: invalid group handle {handle}") from None


@dataclass(eq=False)
class Entry:
    """One table entry (or a default entry): its action (or profile reference)."""

    handle: int
    match: tuple[Any, ...]
    priority: int
    action: ActionSpec | None
    data: tuple[int, ...]
    ref: Member | Group | None = None
    packets: int = 0
    bytes: int = 0
    meter: Meter | None = None
    checks: tuple[tuple[int, int, int], ...] = ()  # (key index, mask, value)
    ranges: tuple[tuple[int, int, int], ...] = ()  # (key index, lo, hi)


def lpm_width(width: int) -> int:
    """The width an lpm prefix length counts over: BMv2 keeps a key as whole bytes (the
    value right-aligned, leading bits zero) and counts the prefix from the first byte's
    top bit, so ``0x800/1`` of a 12-bit key is every value (bit 15 of 16 is always 0);
    a prefix is still at most the field's width (BAD_MATCH_KEY), so ``/12`` is the
    longest prefix of a 12-bit key and it leaves the last 4 bits unmatched."""
    return (width + 7) // 8 * 8


def lpm_mask(width: int, plen: int) -> int:
    """The bits of a ``width``-bit key an lpm prefix of ``plen`` compares (``lpm_width``)."""
    pw = lpm_width(width)
    return ((1 << width) - 1) & (((1 << pw) - 1) ^ ((1 << (pw - plen)) - 1))


@dataclass
class KeyField:
    """One key element: its control-plane name, match kind and width in bits."""

    name: str
    match_type: str
    width: int
    target: str = ""  # "hdr.field" as in the JSON target (STF may name keys this way)


class Table:
    """A compiled match table; ``apply(f, p)`` runs it and returns the next node."""

    def __init__(
        self,
        name: str,
        keys: list[KeyField],
        keyfn: Callable[[list[int]], tuple[int, ...]],
        actions: dict[str, ActionSpec],
        profile: ActionProfile | None,
        length_slot: int,
    ) -> None:
        self.name, self.keys, self.keyfn, self.actions = name, keys, keyfn, actions
        self.profile = profile
        self.length_slot = length_slot
        kinds = {k.match_type for k in keys}
        self.needs_priority = bool(kinds & {"ternary", "range", "optional"})
        if self.needs_priority:
            self.kind = "ternary"
        elif "lpm" in kinds:
            self.kind = "lpm"
        else:
            self.kind = "exact"
        self.lpm_index = next((i for i, k in enumerate(keys) if k.match_type == "lpm"), -1)
        self.entries: dict[int, Entry] = {}
        self.immutable = False
        self.max_size: int | None = None  # the JSON's max_size: more entries is TABLE_FULL
        self._default: Entry | None = None
        self.default_const = False  # the default's action is fixed (its data may change)
        self.default_entry_const = False  # the whole default entry is fixed
        self.initial_default: Entry | None = None  # the JSON's default (table_reset_default)
        self.with_counters = False
        self.meter_factory: Callable[[], Meter] | None = None
        self.meter_slot: int | None = None
        self.meter_length: Callable[[list[int]], int] | None = None
        self.clock_us: Callable[[], float] = lambda: 0.0
        self.next_by_action: dict[int, Any] = {}
        self.next_hit: Any = None
        #: __MISS__'s node, or (not hit_miss) base_default_next: where a miss with no
        #: default entry goes on, as BMv2 (an indirect table has none until one is set)
        self.next_miss: Any = None
        self.hit_miss = False
        self.empty_group_misses = 0
        self.changed: Callable[[], None] = _nothing  # the decision cache's flush
        # called on direct-counter hits, direct meters and empty groups (decision cache)
        self.observer: Callable[[str, Table, Entry | None, int], None] | None = None
        self._handles = EntryHandles()
        self._exact: dict[tuple[int, ...], Entry] = {}
        self._levels: list[tuple[int, int, dict[tuple[int, ...], Entry]]] = []
        self._sorted: list[Entry] = []
        #: (match, priority or 0) -> entry: the duplicate check of ``add`` in O(1) (a scan
        #: made programming a 1,024-host fabric's route tables quadratic)
        self._by_match: dict[tuple[Any, ...], Entry] = {}

    # -- control plane ---------------------------------------------------------------------

    @property
    def default(self) -> Entry | None:
        """The default entry (run on a miss), or None."""
        return self._default

    @default.setter
    def default(self, entry: Entry | None) -> None:
        self._default = entry
        self.changed()

    def add(
        self,
        match: list[Any],
        action: ActionSpec | None,
        data: tuple[int, ...],
        priority: int = 0,
        ref: Member | Group | None = None,
    ) -> int:
        """Insert an entry; ``match`` holds one normalised spec per key field."""
        self.changed()
        if self.immutable:
            raise CliError(f"table {self.name} has const entries and cannot be modified")
        if self.max_size is not None and len(self.entries) >= self.max_size:
            raise CliError(f"table {self.name} is full: size {self.max_size} (TABLE_FULL)")
        match_t = tuple(match)
        dup = self._find(match_t, priority)
        if dup is not None:
            raise CliError(f"table {self.name}: duplicate entry (handle {dup.handle})")
        e = Entry(self._handles.new(), match_t, priority, action, data, ref)
        if self.meter_factory is not None:
            e.meter = self.meter_factory()
        checks, ranges = [], []
        for i, (k, spec) in enumerate(zip(self.keys, match_t)):
            full = (1 << k.width) - 1
            if k.match_type in ("exact", "valid"):
                checks.append((i, full, spec))
            elif k.match_type == "lpm":
                value, plen = spec
                mask = lpm_mask(k.width, plen)
                checks.append((i, mask, value & mask))
            elif k.match_type in ("ternary", "optional"):
                checks.append((i, spec[1], spec[0]))
            else:
                ranges.append((i, spec[0], spec[1]))
        e.checks, e.ranges = tuple(checks), tuple(ranges)
        self.entries[e.handle] = e
        self._index(e)
        return e.handle

    def _match_key(self, match: tuple[Any, ...], priority: int) -> tuple[Any, ...]:
        """What makes two entries one: an lpm value counts only within its prefix (BMv2
        keys its trie on the prefix bits: 6/2 and 2/2 of a 3-bit key are one entry)."""
        i = self.lpm_index
        if i >= 0:
            value, plen = match[i]
            masked = (value & lpm_mask(self.keys[i].width, plen), plen)
            match = (*match[:i], masked, *match[i + 1 :])
        return (match, priority if self.needs_priority else 0)

    def _find(self, match: tuple[Any, ...], priority: int) -> Entry | None:
        """The entry ``add`` would duplicate (normalised specs are ints or int tuples)."""
        return self._by_match.get(self._match_key(match, priority))

    def _lpm_slot(self, e: Entry) -> tuple[int, int, tuple[int, ...]]:
        """(prefix length, shift, key) of LPM entry ``e`` in its level's dict: the LPM
        field shifted right past the prefix, the other fields as they are."""
        i = self.lpm_index
        value, plen = e.match[i]
        shift = lpm_width(self.keys[i].width) - plen
        return plen, shift, (*e.match[:i], value >> shift, *e.match[i + 1 :])

    def _index(self, e: Entry) -> None:
        self._by_match[self._match_key(e.match, e.priority)] = e
        if self.kind == "exact":
            self._exact[e.match] = e
        elif self.kind == "lpm":
            plen, shift, key = self._lpm_slot(e)
            for lvl_plen, _shift, d in self._levels:
                if lvl_plen == plen:
                    d[key] = e
                    break
            else:
                self._levels.append((plen, shift, {key: e}))
                self._levels.sort(key=lambda t: -t[0])
        else:
            bisect.insort(self._sorted, e, key=_rank)

    def _unindex(self, e: Entry) -> None:
        """Undo :meth:`_index` for one entry: a delete no longer rebuilds the whole index.

        Normalised specs make every index key unique to its entry (LPM and ternary values
        are masked: ``parse_match``, ``ops._key``), so removing ``e``'s keys leaves what
        :meth:`_reindex` of the remaining entries would build (a test checks it)."""
        del self._by_match[self._match_key(e.match, e.priority)]
        if self.kind == "exact":
            del self._exact[e.match]
        elif self.kind == "lpm":
            plen, _shift, key = self._lpm_slot(e)
            for n, (lvl_plen, _s, d) in enumerate(self._levels):
                if lvl_plen == plen:
                    del d[key]
                    if not d:
                        del self._levels[n]
                    break
        else:  # ranks (priority, handle) are unique: the entry is where its rank is
            del self._sorted[bisect.bisect_left(self._sorted, _rank(e), key=_rank)]

    def _reindex(self) -> None:
        self._exact, self._levels, self._sorted, self._by_match = {}, [], [], {}
        for e in self.entries.values():
            self._index(e)

    def entry(self, handle: int) -> Entry:
        """The entry with ``handle`` (CliError if absent)."""
        e = self.entries.get(handle)
        if e is not None:
            return e
        if any(h & INDEX_MASK == handle & INDEX_MASK for h in self.entries):
            raise CliError(f"table {self.name}: expired entry handle {handle} (EXPIRED_HANDLE)")
        raise CliError(f"table {self.name}: invalid entry handle {handle}")

    def modify(
        self,
        handle: int,
        action: ActionSpec | None,
        data: tuple[int, ...],
        ref: Member | Group | None = None,
    ) -> None:
        """Change an entry's action and data (or profile reference)."""
        self.changed()
        if self.immutable:
            raise CliError(f"table {self.name} has const entries and cannot be modified")
        e = self.entry(handle)
        e.action, e.data, e.ref = action, data, ref

    def delete(self, handle: int) -> None:
        """Remove an entry."""
        self.changed()
        if self.immutable:
            raise CliError(f"table {self.name} has const entries and cannot be modified")
        e = self.entry(handle)
        del self.entries[handle]
        self._handles.free(handle)
        self._unindex(e)

    def clear(self) -> None:
        """Remove every entry (const entries too: simple_switch's table_clear does)."""
        self.changed()
        self.entries.clear()
        self._handles = EntryHandles()  # BMv2: handles from 0 again
        self._reindex()

    def reset_state(self) -> None:
        """BMv2's ``reset_state``: every entry gone (const entries too), handles from 0, the
        JSON's default action back."""
        self.entries.clear()
        self._handles = EntryHandles()
        self._reindex()
        self.default = self.initial_default  # calls changed()

    # -- data plane ------------------------------------------------------------------------

    def lookup(self, key: tuple[int, ...]) -> Entry | None:
        """The matching entry for ``key``, or None."""
        if self.kind == "exact":
            return self._exact.get(key)
        if self.kind == "lpm":
            i = self.lpm_index
            if len(key) == 1:
                v = key[0]
                for _plen, shift, d in self._levels:
                    e = d.get((v >> shift,))
                    if e is not None:
                        return e
                return None
            for _plen, shift, d in self._levels:
                e = d.get((*key[:i], key[i] >> shift, *key[i + 1 :]))
                if e is not None:
                    return e
            return None
        for e in self._sorted:
            for i, m, v in e.checks:
                if key[i] & m != v:
                    break
            else:
                for i, lo, hi in e.ranges:
                    if not lo <= key[i] <= hi:
                        break
                else:
                    return e
        return None

    def apply(self, f: list[int], p: Any) -> Any:
        """Look the packet up, run the action, return the next control-flow node."""
        e = self.lookup(self.keyfn(f))
        hit = e is not None
        if e is None:
            e = self._default
            if e is None:
                return self.next_miss
        else:
            if self.with_counters:
                e.packets += 1
                e.bytes += f[self.length_slot]
                if self.observer is not None:
                    self.observer("count", self, e, f[self.length_slot])
            if e.meter is not None and self.meter_slot is not None and self.meter_length:
                if self.observer is not None:
                    self.observer("meter", self, e, 0)
                f[self.meter_slot] = e.meter.execute(self.meter_length(f), self.clock_us())
        action, data = e.action, e.data
        ref = e.ref
        if isinstance(ref, Group) and not ref.members:
            # nothing to select: behave as a miss (run the default entry, if any)
            self.empty_group_misses += 1
            if self.observer is not None:
                self.observer("empty_group", self, e, 0)
            d = self._default
            if d is None or d is e or (isinstance(d.ref, Group) and not d.ref.members):
                return self.next_miss
            hit, ref, action, data = False, d.ref, d.action, d.data
        if ref is not None:
            if isinstance(ref, Group):
                sel = self.profile.selector  # type: ignore[union-attr]
                ref = ref.members[sel(f, p) % len(ref.members)]  # type: ignore[misc]
            action, data = ref.action, ref.data
        if action is None:
            return None
        if action.fn(f, p, data):
            return None
        if self.hit_miss:
            return self.next_hit if hit else self.next_miss
        return self.next_by_action.get(action.id)
