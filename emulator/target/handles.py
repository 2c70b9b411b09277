"""BMv2's handle allocation for table entries, action-profile members and groups.

Handles are reused lowest first (``Handles``). A match table's entry handle also counts,
in bits 24 and up, how often a delete freed its index (``EntryHandles``): after
``table_delete t 0`` the next entry is 16777216, and 0 is "expired" (simple_switch_CLI:
EXPIRED_HANDLE); ``table_clear`` and ``reset_state`` start from 0 again.
"""

from __future__ import annotations

import heapq

HANDLE_VERSION_SHIFT = 24  # BMv2: a table entry handle's high bits count its index's reuse
INDEX_MASK = (1 << HANDLE_VERSION_SHIFT) - 1


class Handles:
    """BMv2-style handle allocation: the lowest free handle is reused first."""

    def __init__(self) -> None:
        self._next = 0
        self._free: list[int] = []

    def get(self) -> int:
        """A new handle."""
        if self._free:
            return heapq.heappop(self._free)
        self._next += 1
        return self._next - 1

    def release(self, handle: int) -> None:
        """Give ``handle`` back for reuse."""
        heapq.heappush(self._free, handle)


class EntryHandles:
    """BMv2's match-table entry handles: the lowest free index, with the number of times a
    delete freed that index in bits 24 and up (a stale handle is then "expired")."""

    def __init__(self) -> None:
        self._index = Handles()
        self._versions: dict[int, int] = {}

    def new(self) -> int:
        """The handle of the next entry added."""
        index = self._index.get()
        return index | self._versions.get(index, 0) << HANDLE_VERSION_SHIFT

    def free(self, handle: int) -> None:
        """``handle``'s entry was deleted: its index is reused, one version up."""
        index = handle & INDEX_MASK
        self._index.release(index)
        self._versions[index] = (handle >> HANDLE_VERSION_SHIFT) + 1
