"""The ``FASTHOP`` traffic manager: :class:`TrafficManager` with the hot paths inlined.

* ``take(port)``: ``ready_time`` and, when that is now, ``dequeue`` in one scan (the
  runtime's port transmitter calls it instead of the two), the released frame in one
  :class:`Released` record per TM instead of a new ``Dequeued`` per frame;
* when PFC is the only flow-control scheme (no InfiniBand credits) and the TM does not
  serialise, a queue's PFC state is looked up in place (a paused class still goes through
  ``PfcFlowControl.eligible_at``, where the watchdog's bookkeeping lives) and PFC's no-op
  ``on_transmit`` is skipped; a port's scan visits only the queues it ever used;
* ``enqueue``'s admitted case inlined; PFC generation's occupancy counted in place, and
  only once generation is configured (``set_pfc_thresholds`` counts the frames queued then;
  before, ``PfcGenerator.occupancy`` asks this TM), its threshold check only when a
  threshold may be crossed.

Same answers as the base class (tests/target/test_tm_fast.py drives both with the same
operations, ``take`` against ``ready_time`` + ``dequeue``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from emulator.target.flowcontrol import BLOCKED
from emulator.target.pfc_gen import PFC_CLASSES
from emulator.target.tm import Dequeued, TrafficManager, _Port, _Queue


class Released:
    """The frame :meth:`FastTrafficManager.take` released, with ``Dequeued``'s fields.

    One record per TM, overwritten by every ``take``: read it before the next one (the
    switch's egress does, at once), so releasing a frame allocates nothing."""

    __slots__ = (
        "deq_qdepth",
        "deq_timedelta_ns",
        "enq_qdepth",
        "enq_timestamp_ns",
        "item",
        "priority",
    )

    def __init__(self) -> None:
        self.item: object = None
        self.priority = self.enq_timestamp_ns = self.enq_qdepth = 0
        self.deq_qdepth = self.deq_timedelta_ns = 0


class FastTrafficManager(TrafficManager):
    """A traffic manager answering ``ready_time`` / ``dequeue`` with fewer calls, and
    counting PFC occupancy in place."""

    def __init__(
        self, clock: Callable[[], int], priority_queues: int = 1, *, serialize: bool = False
    ) -> None:
        # spelt out, not *args forwarded: mypyc (emulator/native) compiles this class
        super().__init__(clock, priority_queues, serialize=serialize)
        gen = self.pfc_gen
        #: PFC generation's state, read in place: (port, class) -> counts; port -> XOFF/XON
        self._gen_state, self._gen_cfg = gen._state, gen._cfg
        #: PFC generation's occupancy is counted once it was configured (before, nothing
        #: reads it: ``set_pfc_thresholds`` counts the frames queued then)
        self._counting = False
        gen.count_queued = self._count_queued
        self._pfc_queued = self._queued_from
        self._pfc_left = self._left_from
        #: port -> (priority, queue, its entries), highest priority first
        self._order: dict[int, list[tuple[int, _Queue, deque[Any]]]] = {}
        self._released = Released()

    def _by_priority(self, port: int, p: _Port) -> list[tuple[int, _Queue, deque[Any]]]:
        """``port``'s queues that were ever used, highest priority first (a port's queues
        are made once; ``enqueue`` forgets the list when a queue gets its first frame)."""
        order = self._order.get(port)
        if order is None:
            order = self._order[port] = [
                (prio, p.queues[prio], p.queues[prio].entries)
                for prio in range(self.priority_queues - 1, -1, -1)
                if p.queues[prio].enqueued
            ]
        return order

    def _start(self, port: int) -> tuple[_Port, int] | None:
        """``port``'s state and the time, when it has frames queued (else None)."""
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        return p, self._clock()

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
            r = self._release(port, prio, q, p, now)
            return Dequeued(
                r.item, prio, r.enq_timestamp_ns, r.enq_qdepth, r.deq_qdepth, r.deq_timedelta_ns
            )
        return None

    def _count(self, in_port: int, prio: int, delta: int, now: int) -> None:
        """``PfcGenerator.on_enqueue`` (delta 1) / ``on_dequeue`` (delta -1) in place, its
        threshold check only when it may act: at or above XOFF, or at or below XON while
        upstream is paused."""
        st = self._gen_state.get((in_port, prio))
        if st is None:
            st = self.pfc_gen._st(in_port, prio)
        occ = st.occupancy = st.occupancy + delta
        cfg = self._gen_cfg.get(in_port)
        if cfg is None or prio >= PFC_CLASSES:
            return
        if occ >= cfg.xoff or (occ <= cfg.xon and st.paused_until is not None):
            self.pfc_gen._check(in_port, prio, now)

    def _queued_from(self, ingress_port: int, priority: int, now: int) -> None:
        """The base class's occupancy hook (its own ``enqueue``/``dequeue`` paths)."""
        if self._counting:
            self.pfc_gen.on_enqueue(ingress_port, priority, now)

    def _left_from(self, ingress_port: int, priority: int, now: int) -> None:
        """The base class's occupancy hook (its own ``enqueue``/``dequeue`` paths)."""
        if self._counting:
            self.pfc_gen.on_dequeue(ingress_port, priority, now)

    def set_pfc_thresholds(
        self, port: int, xoff: int | None, xon: int = 0, quanta: int = 0xFFFF
    ) -> None:
        """As :meth:`TrafficManager.set_pfc_thresholds`; the first call counts PFC
        generation's occupancy from the frames queued now (as ``on_enqueue`` would have)."""
        if not self._counting:
            self._counting = True
            gen = self.pfc_gen
            gen.count_queued = None
            for _port, prio, in_port in self._queued_from_ports():
                gen._st(in_port, prio).occupancy += 1
        TrafficManager.set_pfc_thresholds(self, port, xoff, xon, quanta)

    def _queued_from_ports(self) -> Iterator[tuple[int, int, int]]:
        """(egress port, priority, ingress port) of every queued frame that has one."""
        for port, p in self._ports.items():
            for prio, q in enumerate(p.queues):
                for entry in q.entries:
                    if entry[5] is not None:
                        yield port, prio, entry[5]

    def _count_queued(self, in_port: int, prio: int) -> int:
        """PFC generation's occupancy of (``in_port``, ``prio``) while it is not counted."""
        return sum(1 for _, c, i in self._queued_from_ports() if c == prio and i == in_port)

    def enqueue(
        self,
        port: int,
        priority: int,
        item: object,
        length: int,
        ingress_port: int | None = None,
    ) -> bool:
        """As :meth:`TrafficManager.enqueue` (the common case, admitted, inlined)."""
        p = self._ports.get(port)
        if p is None or not 0 <= priority < self.priority_queues:
            self._order.pop(port, None)  # a new port's, or nothing queued
            return TrafficManager.enqueue(self, port, priority, item, length, ingress_port)
        q = p.queues[priority]
        entries = q.entries
        depth = len(entries)
        if depth >= q.capacity:  # tail drop
            return TrafficManager.enqueue(self, port, priority, item, length, ingress_port)
        now = self._clock()
        last = q.last_send_at
        send_at = now if last is None or last + q.interval_ns <= now else last + q.interval_ns
        q.last_send_at = send_at
        entries.append((send_at, item, length, now, depth, ingress_port))
        q.enqueued += 1
        if q.enqueued == 1:  # the queue's first frame: ``_by_priority`` lists it from now on
            self._order.pop(port, None)
        p.queued += 1
        if ingress_port is not None and self._counting:
            self._count(ingress_port, priority, 1, now)
        if self.observer is not None:
            self.observer.enqueued(port, priority, depth + 1)
        return True

    def take(self, port: int) -> Released | int | None:
        """``ready_time`` and, when that is now, ``dequeue`` in one scan: the released frame
        (a :class:`Released`, valid until the next ``take``), else the time a frame may
        leave (later than now), else None (nothing may leave before an event)."""
        if len(self._flow_controls) != 1 or self.serialize:
            ready = TrafficManager.ready_time(self, port)
            if ready is None or ready > self._clock():
                return ready
            return self._as_released(TrafficManager.dequeue(self, port))
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        now = self._clock()
        pfc, best = self.pfc, None
        paused = pfc._state
        order = self._order.get(port)
        for prio, q, entries in order if order is not None else self._by_priority(port, p):
            if not entries:
                continue
            t = entries[0][0]
            st = paused.get((port, prio))
            if st is not None and st.until > now:
                e = pfc.eligible_at(port, prio, now)
                if e >= BLOCKED:
                    continue
                if e > t:
                    t = e
            if t <= now:  # ready_time's answer is now and dequeue takes this queue
                return self._release(port, prio, q, p, now)
            if best is None or t < best:
                best = t
        return best

    def _release(self, port: int, prio: int, q: _Queue, p: _Port, now: int) -> Released:
        """Pop the head of queue (port, prio) now, as :meth:`dequeue` does."""
        entries = q.entries
        _send_at, item, length, enq_ts, enq_qdepth, in_port = entries.popleft()
        q.dequeued += 1
        p.queued -= 1
        depth = len(entries)
        if self.observer is not None:
            self.observer.dequeued(port, prio, depth)
        if in_port is not None:
            if self._counting:
                self._count(in_port, prio, -1, now)
            if self.on_buffer_release is not None:
                self.on_buffer_release(in_port, prio, length, now)
        r = self._released
        r.item, r.priority, r.enq_timestamp_ns, r.enq_qdepth = item, prio, enq_ts, enq_qdepth
        r.deq_qdepth, r.deq_timedelta_ns = depth, now - enq_ts
        return r

    def _as_released(self, deq: Dequeued | None) -> Released | None:
        """``deq`` copied into the record ``take`` returns."""
        if deq is None:
            return None
        r = self._released
        r.item, r.priority, r.enq_timestamp_ns, r.enq_qdepth = deq[:4]
        r.deq_qdepth, r.deq_timedelta_ns = deq[4], deq[5]
        return r
