"""Tiny discrete-event networks for the traffic tests: a wire and a star switch.

Not the fabemu runtime: just enough to drive RNICs in virtual time. A wire delivers each
frame after ``delay_ns`` (the RNIC already serialises at its line rate); ``drop`` decides
which frames vanish. The star switch is output-queued with a per-port FIFO served at the
port rate, routing on the IPv4 destination and rewriting the destination MAC.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable

from emulator.traffic.framing import mac_bytes
from emulator.traffic.qos import tc_of_dscp
from emulator.traffic.qp import wire_ns
from emulator.traffic.rnic import Rnic


class Sim:
    """Event loop over RNICs and switch ports; integer nanoseconds."""

    def __init__(self) -> None:
        self.now = 0
        self._heap: list[tuple[int, int, Callable[[int], None]]] = []
        self._seq = itertools.count()
        self._wake: dict[int, int] = {}
        self.nics: list[Rnic] = []
        self.attach: dict[int, Callable[[bytes, int], None]] = {}

    def at(self, t: int, fn: Callable[[int], None]) -> None:
        """Run ``fn(t)`` at time ``t``."""
        heapq.heappush(self._heap, (t, next(self._seq), fn))

    def add_nic(self, nic: Rnic, out: Callable[[bytes, int], None]) -> None:
        """Register ``nic`` whose transmitted frames go to ``out(frame, t)``."""
        self.nics.append(nic)
        self.attach[id(nic)] = out

    def deliver(self, nic: Rnic, frame: bytes, t: int) -> None:
        """Frame arrives at ``nic`` at ``t``."""
        self.at(t, lambda now: (nic.on_frame(frame, now), self.schedule(nic, now)))

    def schedule(self, nic: Rnic, now: int) -> None:
        """(Re)arm ``nic``'s wake-up."""
        nw = nic.next_wakeup()
        if nw is None:
            return
        nw = max(nw, now)
        cur = self._wake.get(id(nic))
        if cur is not None and cur <= nw and cur >= now:
            return
        self._wake[id(nic)] = nw
        self.at(nw, lambda t: self._poll(nic, t))

    def _poll(self, nic: Rnic, t: int) -> None:
        if self._wake.get(id(nic)) != t:
            return
        del self._wake[id(nic)]
        frame = nic.poll(t)
        if frame is not None:
            self.attach[id(nic)](frame, t)
        nw = nic.next_wakeup()
        if nw is not None:
            # the RNIC contract: after poll(t) returned nothing, the next wake-up is later
            assert frame is not None or nw > t, (nic.name, t, nw)
            self._wake[id(nic)] = max(nw, t)
            self.at(self._wake[id(nic)], lambda tt: self._poll(nic, tt))

    def kick_all(self) -> None:
        """Arm every RNIC (after posting work from outside an event)."""
        for nic in self.nics:
            self.schedule(nic, self.now)

    def run(self, until_ns: int, max_events: int = 5_000_000) -> int:
        """Process events up to ``until_ns``; returns the number of events run."""
        n = 0
        while self._heap and n < max_events:
            t, _, fn = self._heap[0]
            if t > until_ns:
                break
            heapq.heappop(self._heap)
            self.now = t
            fn(t)
            n += 1
        if n < max_events:
            self.now = max(self.now, until_ns)
        return n


class Wire:
    """A point-to-point link between two RNICs with a propagation delay and a drop rule."""

    def __init__(
        self,
        sim: Sim,
        a: Rnic,
        b: Rnic,
        delay_ns: int = 1000,
        drop: Callable[[Rnic, bytes], bool] | None = None,
        mangle: Callable[[Rnic, bytes], bytes] | None = None,
    ) -> None:
        self.sim, self.delay, self.drop, self.mangle = sim, delay_ns, drop, mangle
        self.dropped = 0
        self.log: list[tuple[int, str, bytes]] = []
        sim.add_nic(a, lambda f, t: self._send(a, b, f, t))
        sim.add_nic(b, lambda f, t: self._send(b, a, f, t))

    def _send(self, src: Rnic, dst: Rnic, frame: bytes, t: int) -> None:
        self.log.append((t, src.name, frame))
        if self.drop is not None and self.drop(src, frame):
            self.dropped += 1
            return
        if self.mangle is not None:
            frame = self.mangle(src, frame)
        self.sim.deliver(dst, frame, t + self.delay)


class StarSwitch:
    """An output-queued switch: one port per RNIC, strict-priority queues by DSCP -> TC."""

    def __init__(
        self, sim: Sim, port_bps: float, delay_ns: int = 500, buffer_pkts: int = 10_000
    ) -> None:
        self.sim, self.bps, self.delay, self.buffer = sim, port_bps, delay_ns, buffer_pkts
        self.mac = mac_bytes("02:00:00:00:00:fe")
        self.ports: dict[bytes, Rnic] = {}
        self._macs: dict[bytes, bytes] = {}
        self.queues: dict[bytes, list[deque[bytes]]] = {}
        self.busy: dict[bytes, bool] = {}
        self.forwarded = 0
        self.dropped = 0
        self.max_depth = 0

    def add(self, nic: Rnic) -> None:
        """Connect ``nic`` to a new port."""
        key = bytes(int(x) for x in nic.ip.split("."))
        self.ports[key] = nic
        self._macs[key] = mac_bytes(nic.mac)
        self.queues[key] = [deque() for _ in range(8)]
        self.busy[key] = False
        self.sim.add_nic(nic, lambda f, t: self.sim.at(t + self.delay, lambda tt: self._rx(f, tt)))

    def _rx(self, frame: bytes, t: int) -> None:
        key = frame[30:34]
        if key not in self.ports:
            self.dropped += 1
            return
        qs = self.queues[key]
        depth = sum(len(q) for q in qs)
        if depth >= self.buffer:
            self.dropped += 1
            return
        self.max_depth = max(self.max_depth, depth + 1)
        qs[tc_of_dscp(frame[15] >> 2)].append(self._macs[key] + self.mac + frame[12:])
        if not self.busy[key]:
            self._serve(key, t)

    def _serve(self, key: bytes, t: int) -> None:
        qs = self.queues[key]
        q = next((q for q in reversed(qs) if q), None)
        if q is None:
            self.busy[key] = False
            return
        self.busy[key] = True
        frame = q.popleft()
        done = t + wire_ns(len(frame), self.bps)

        def finish(tt: int) -> None:
            self.forwarded += 1
            self.sim.deliver(self.ports[key], frame, tt + self.delay)
            self._serve(key, tt)

        self.sim.at(done, finish)
