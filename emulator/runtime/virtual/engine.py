"""The discrete-event clock of the virtual-time runtime: a heap of integer-ns events.

    engine.at(t, fn, arg)        fn(arg) runs when the clock reaches t (ns, int)
    engine.run(until_ns)         pops events in (t, seq) order; seq breaks ties in
                                 scheduling order, so a run is deterministic
    engine.stop = True           (set by an event) ends run() after that event

No randomness lives here; everything random in a run is seeded elsewhere.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

Event = tuple[int, int, Callable[[Any], None], Any]
DRAINED = 1 << 62  # ``Engine.cur`` when no event is running and none is due by ``now``


class Engine:
    """Integer-nanosecond event queue with deterministic tie-breaking."""

    def __init__(self) -> None:
        self.now = 0
        self.stop = False
        self.events = 0  # events executed so far
        #: the event heap and its tie-breaking counter: hot paths (``fasthop``) push
        #: ``(max(t, now), next(seq), fn, arg)`` onto it directly, as ``at`` does
        self.heap: list[Event] = []
        self.seq = itertools.count()
        #: the sequence number of the event running now; ``DRAINED`` between runs that ran
        #: every event up to their end (an event drawn earlier at ``now`` has run)
        self.cur = DRAINED

    def __call__(self) -> int:
        """The clock (switches and the TM call this)."""
        return self.now

    def at(self, t: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        """Run ``fn(arg)`` at ``t`` ns (never earlier than now)."""
        if t < self.now:
            t = self.now
        heapq.heappush(self.heap, (t, next(self.seq), fn, arg))

    def pending(self) -> int:
        """Events still queued."""
        return len(self.heap)

    def next_time(self) -> int | None:
        """Time of the earliest queued event, or None."""
        return self.heap[0][0] if self.heap else None

    def run(self, until_ns: int) -> bool:
        """Execute events up to ``until_ns``; True if stopped early by ``stop``.

        When no event stops it, the clock ends at ``until_ns``.
        """
        q, pop = self.heap, heapq.heappop
        self.stop = False
        n = 0
        try:
            while q:
                t, self.cur, fn, arg = pop(q)
                if t > until_ns:  # put back (once per run: cheaper than peeking every time)
                    heapq.heappush(q, (t, self.cur, fn, arg))
                    break
                self.now = t
                fn(arg)
                n += 1
                if self.stop:
                    return True
        finally:
            self.events += n
        self.cur = DRAINED
        if until_ns > self.now:
            self.now = until_ns
        return False
