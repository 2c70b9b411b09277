"""The ``FASTHOP`` traffic manager: :class:`TrafficManager` with PFC eligibility inlined.

When PFC is the only flow-control scheme (no InfiniBand credits), a queue may send unless
its (port, class) has PFC state paused past now; ``ready_time`` and ``dequeue`` look that
up in place instead of two calls per non-empty queue (``_eligible_at`` and
``PfcFlowControl.eligible_at``), and skip PFC's no-op ``on_transmit``. Paused classes still
go through ``eligible_at`` (the watchdog's bookkeeping lives there). PFC generation's
occupancy count is kept in place, and its threshold check (``PfcGenerator._check``) runs
only when a threshold may be crossed. Same answers as the base class
(tests/target/test_tm_fast.py drives both with the same operations).
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

from emulator.target.flowcontrol import BLOCKED
from emulator.target.pfc_gen import PFC_CLASSES, PfcGenerator
from emulator.target.tm import Dequeued, TrafficManager, _Port, _Queue


def _occupancy(gen: PfcGenerator, delta: int, port: int, cls: int, now: int) -> None:
    """``gen.on_enqueue`` (delta 1) / ``gen.on_dequeue`` (delta -1), calling ``_check`` only
    when it may act: at or above XOFF, or at or below XON while upstream is paused."""
    st = gen._state.get((port, cls))
    if st is None:
        st = gen._st(port, cls)
    occ = st.occupancy = st.occupancy + delta
    cfg = gen._cfg.get(port)
    if cfg is None or cls >= PFC_CLASSES:
        return
    if occ >= cfg.xoff or (occ <= cfg.xon and st.paused_until is not None):
        gen._check(port, cls, now)


class FastTrafficManager(TrafficManager):
    """A traffic manager answering ``ready_time`` / ``dequeue`` with fewer calls, and
    counting PFC occupancy in place."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pfc_queued = functools.partial(_occupancy, self.pfc_gen, 1)
        self._pfc_left = functools.partial(_occupancy, self.pfc_gen, -1)
        #: port -> (priority, queue, its entries), highest priority first
        self._order: dict[int, list[tuple[int, _Queue, deque[Any]]]] = {}

    def _by_priority(self, port: int, p: _Port) -> list[tuple[int, _Queue, deque[Any]]]:
        """``port``'s queues, highest priority first (a port's queues are made once)."""
        order = self._order.get(port)
        if order is None:
            order = self._order[port] = [
                (prio, p.queues[prio], p.queues[prio].entries)
                for prio in range(self.priority_queues - 1, -1, -1)
            ]
        return order

    def _start(self, port: int) -> tuple[_Port, int] | None:
        """``port``'s state and the time, when it has frames queued (else None)."""
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        return p, self._clock()

    def ready_time(self, port: int) -> int | None:
        """As :meth:`TrafficManager.ready_time`."""
        if len(self._flow_controls) != 1 or self.serialize:
            return TrafficManager.ready_time(self, port)
        started = self._start(port)
        if started is None:
            return None
        p, now = started
        pfc, best = self.pfc, None
        paused = pfc._state
        for prio, _q, entries in self._by_priority(port, p):
            if not entries:
                continue
            t = entries[0][0]
            st = paused.get((port, prio))
            if st is not None and st.until > now:
                e = pfc.eligible_at(port, prio, now)
                if e >= BLOCKED:
                    continue
            else:
                e = now
            if e > t:
                t = e
            if best is None or t < best:
                best = t
            if best <= now:
                break
        if best is None:
            return None
        return best if best > now else now

    def dequeue(self, port: int) -> Dequeued | None:
        """As :meth:`TrafficManager.dequeue`."""
        if len(self._flow_controls) != 1 or self.serialize:
            return TrafficManager.dequeue(self, port)
        started = self._start(port)
        if started is None:
            return None
        p, now = started
        pfc = self.pfc
        paused = pfc._state
        for prio, q, entries in self._by_priority(port, p):
            if not entries or entries[0][0] > now:
                continue
            st = paused.get((port, prio))
            if st is not None and st.until > now and pfc.eligible_at(port, prio, now) > now:
                continue
            _send_at, item, length, enq_ts, enq_qdepth, in_port = entries.popleft()
            q.dequeued += 1
            p.queued -= 1
            depth = len(entries)
            if self.observer is not None:
                self.observer.dequeued(port, prio, depth)
            if in_port is not None:
                self._pfc_left(in_port, prio, now)
                if self.on_buffer_release is not None:
                    self.on_buffer_release(in_port, prio, length, now)
            return Dequeued(item, prio, enq_ts, enq_qdepth, depth, now - enq_ts)
        return None
