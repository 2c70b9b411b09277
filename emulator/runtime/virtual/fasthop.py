"""The ``FASTHOP`` speed-up: the per-hop plumbing of :mod:`.nodes` and :mod:`.links` with
fewer Python calls (same events, same order, same results).

Each class overrides only the hot methods of its base and does what the base does, with
the calls a hop makes into the engine, the TM's PFC generator and the lazy sampler inlined:

* ``FastLinkDir.send``: serialisation time and the arrival event pushed onto the engine's
  heap directly (the base's slow cases, pcap/PFC/down/impaired, go to the base);
* ``FastPortTx``: wake-ups pushed directly; the PFC frame queue read in place;
* ``FastSwitchBox.flush``: ports with PFC frames found without building a list; one dirty
  port (the common case) without sorting;
* ``FastQueueWatch``: the lazy sampler's track filled from here (one call less per
  enqueue and dequeue);
* ``FastHostBox``: wake-ups pushed directly (and the RNIC visits only its used traffic
  classes: ``Rnic._tc_order``).

Event sequence numbers are drawn at the same moments as in the base classes, so the heap
pops events in the same order (tests/target/test_speedups_scenarios.py compares results).
"""

from __future__ import annotations

from heapq import heappush
from typing import TYPE_CHECKING, Any

from emulator.runtime.virtual.links import MAC_CONTROL, LinkDir
from emulator.runtime.virtual.nodes import (
    MAX_EGRESS_DROPS,
    HostBox,
    PortTx,
    QueueWatch,
    SwitchBox,
)
from emulator.target.tm_fast import FastTrafficManager
from emulator.vocab import WIRE_OVERHEAD_BYTES

if TYPE_CHECKING:
    from emulator.runtime.virtual.lazysample import LazySampler, _Track

_BITS_NS = 8e9


class FastLinkDir(LinkDir):
    """A link direction whose common ``send`` (up, clean, no pcap, data) is inlined."""

    __slots__ = ()

    def send(self, frame: bytes, t: int) -> int:
        """As :meth:`LinkDir.send`."""
        if (
            self.pcap_out is not None
            or self.impair is not None
            or not self.is_up
            or frame[12:14] == MAC_CONTROL
        ):
            return LinkDir.send(self, frame, t)
        n = len(frame)
        ser = int(((n + WIRE_OVERHEAD_BYTES) * _BITS_NS) // self.rate_bps) + 1  # qp.wire_ns
        w = self.watch
        if w is not None and self.sampled != w.n:
            w.fill_link(self)
        self.bytes += n
        self.packets += 1
        self.busy_ns += ser
        self.busy_until = t + ser
        if self.uplink is not None:
            self._ledger.attribute(self.uplink, frame)
        self._wire.append(frame)
        e = self._engine
        at = t + ser + self.delay_ns
        heappush(e.heap, (at if at > e.now else e.now, next(e.seq), self._arrive, self.epoch))
        return ser


class FastPortTx(PortTx):
    """A switch port transmitter with its engine, switch and TM at hand."""

    __slots__ = ("_engine", "_gen", "_heap", "_seq", "_sw", "_tm", "_wake_fn")

    def __init__(self, box: SwitchBox, port: int, link: LinkDir) -> None:
        super().__init__(box, port, link)
        self._engine = box.engine
        self._heap, self._seq = box.engine.heap, box.engine.seq
        self._sw, self._tm, self._gen = box.sw, box.tm, box.tm.pfc_gen
        self._wake_fn = self._wake

    def arm(self, t: int) -> None:
        """As :meth:`PortTx.arm` (the event no earlier than now, its argument ``t``)."""
        self.armed = t
        now = self._engine.now
        heappush(self._heap, (t if t > now else now, next(self._seq), self._wake_fn, t))

    def pump(self, t: int) -> None:
        """As :meth:`PortTx.pump`."""
        busy = self.busy_until
        if busy > t:
            self.arm(busy)
            return
        tm, port = self._tm, self.port
        frame = None
        if tm.generates_control:
            out = self._gen.frames.get(port)  # PfcGenerator.pop_frame, in place
            if out:
                frame = out.popleft()
        if frame is None:
            ready_time, transmit = tm.ready_time, self._sw.transmit
            for _ in range(MAX_EGRESS_DROPS):
                ready = ready_time(port)
                if ready is None:
                    return
                if ready > t:
                    self.arm(ready)
                    return
                frame = transmit(port)
                if frame is not None:
                    break
            else:
                self.arm(t + 1)
                return
        busy = self.busy_until = t + self.link.send(frame, t)
        if frame[12:14] == MAC_CONTROL:  # as PortTx.pump: the pause refresh timer
            tm.note_sent(port, frame)
            self.box.arm_refresh()
        self.arm(busy)


class FastSwitchBox(SwitchBox):
    """A switch box with :class:`FastPortTx` transmitters, a cheaper ``flush`` and the
    ``FastTrafficManager``."""

    tm_class = FastTrafficManager

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queues = FastQueueWatch(self.sw)
        self.tm.observer = self.queues

    def attach(self, port: int, link: LinkDir) -> None:
        """``link`` leaves this switch from ``port``."""
        self.tx[port] = FastPortTx(self, port, link)

    def flush(self, t: int) -> None:
        """As :meth:`SwitchBox.flush`."""
        tm, txs = self.tm, self.tx
        dirty = self.queues.dirty
        gen_out = tm.pfc_gen.frames
        while True:
            if tm.generates_control:
                for p, out in gen_out.items():  # PfcGenerator.pending_ports, in place
                    if out:
                        tx = txs.get(p)
                        if tx is not None and tx.idle(t):
                            dirty.add(p)
            if not dirty:
                return
            if len(dirty) == 1:
                tx = txs.get(dirty.pop())
                if tx is not None:
                    tx.kick(t)
                continue
            ports = sorted(dirty)
            dirty.clear()
            for p in ports:
                tx = txs.get(p)
                if tx is not None:
                    tx.kick(t)


class FastQueueWatch(QueueWatch):
    """A queue watch that fills the lazy sampler's track itself (see ``LazySampler``)."""

    __slots__ = ("sampler", "tracks")

    def __init__(self, sw: Any) -> None:
        super().__init__(sw)
        self.sampler: LazySampler | None = None
        self.tracks: dict[tuple[int, int], _Track] = {}

    def enqueued(self, port: int, priority: int, depth: int) -> None:
        """As :meth:`QueueWatch.enqueued`."""
        key = (port, priority)
        s = self.sampler
        if s is not None:
            track = self.tracks.get(key)
            if track is not None and track.filled != s.n:
                s._fill_queue(track, depth - 1)
        elif self.watch is not None:
            self.watch(port, priority, depth - 1)
        self.dirty.add(port)
        if depth > self.active.get(key, 0):
            self.active[key] = depth

    def dequeued(self, port: int, priority: int, depth: int) -> None:
        """As :meth:`QueueWatch.dequeued`."""
        s = self.sampler
        if s is not None:
            track = self.tracks.get((port, priority))
            if track is not None and track.filled != s.n:
                s._fill_queue(track, depth + 1)
        elif self.watch is not None:
            self.watch(port, priority, depth + 1)


class FastHostBox(HostBox):
    """An RNIC box whose wake-ups go onto the engine's heap directly."""

    __slots__ = ()

    def arm(self, t: int) -> None:
        """As :meth:`HostBox.arm`."""
        self.armed = t
        e = self.engine
        heappush(e.heap, (t if t > e.now else e.now, next(e.seq), self._wake, t))
