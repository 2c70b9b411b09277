"""The ``FASTHOP`` traffic manager: :class:`TrafficManager` with PFC eligibility inlined.

When PFC is the only flow-control scheme (no InfiniBand credits), a queue may send unless
its (port, class) has PFC state paused past now; ``ready_time`` and ``dequeue`` look that
up in place instead of two calls per non-empty queue (``_eligible_at`` and
``PfcFlowControl.eligible_at``), and skip PFC's no-op ``on_transmit``. Paused classes still
go through ``eligible_at`` (the watchdog's bookkeeping lives there). Same answers as the
base class (tests/target/test_tm_fast.py drives both with the same operations).
"""

from __future__ import annotations

from emulator.target.flowcontrol import BLOCKED
from emulator.target.tm import Dequeued, TrafficManager


class FastTrafficManager(TrafficManager):
    """A traffic manager answering ``ready_time`` / ``dequeue`` with fewer calls."""

    def ready_time(self, port: int) -> int | None:
        """As :meth:`TrafficManager.ready_time`."""
        if len(self._flow_controls) != 1 or self.serialize:
            return TrafficManager.ready_time(self, port)
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        now = self._clock()
        pfc = self.pfc
        paused = pfc._state
        queues = p.queues
        best: int | None = None
        for prio in range(self.priority_queues - 1, -1, -1):
            entries = queues[prio].entries
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
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        now = self._clock()
        pfc = self.pfc
        paused = pfc._state
        for prio in range(self.priority_queues - 1, -1, -1):
            q = p.queues[prio]
            entries = q.entries
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
                self.pfc_gen.on_dequeue(in_port, prio, now)
                if self.on_buffer_release is not None:
                    self.on_buffer_release(in_port, prio, length, now)
            return Dequeued(item, prio, enq_ts, enq_qdepth, depth, now - enq_ts)
        return None
