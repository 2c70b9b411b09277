"""The ``FASTHOP`` speed-up: the per-hop plumbing of :mod:`.nodes` and :mod:`.links` with
fewer Python calls and fewer events (same order, same results).

Each class overrides only the hot methods of its base and does what the base does, with
the calls a hop makes into the engine, the TM's PFC generator and the lazy sampler inlined:

* ``FastLinkDir.send``: serialisation time (cached per frame length) and the arrival event
  pushed onto the engine's heap directly (the slow cases, pcap/PFC/down/impaired, go to
  the base);
* ``FastPortTx.pump``: one TM call per frame (``FastTrafficManager.take``: ready time and
  dequeue in one scan), wake-ups pushed directly, the PFC frame queue read in place;
* off-heap wake-ups: a port that sends its last queued frame arms its wake-up for the end
  of that frame with its sequence number drawn as usual but keeps it off the heap
  (``FastPortTx.lazy``): it would find nothing to send. A kick (a frame queued, a pause
  received, a command) or ``idle`` first settles it (``settle``): still due (later than now, or
  now and after the running event: ``Engine.cur``) -> pushed with that number, so it pops
  where it would have; else it has passed, as an empty wake-up would have, and ``armed`` is
  cleared. Never with PFC generation on (its frames need the wake-up);
* ``FastPortTx._wake``: an empty wake-up neither pumps nor flushes;
* ``FastSwitchBox.on_frame``: a data frame queued for one port kicks that port without
  ``flush``; ``flush``: ports with PFC frames found without building a list, one dirty
  port (the common case) without sorting;
* ``FastQueueWatch``: the lazy sampler's track filled from here (one call less per
  enqueue and dequeue);
* ``FastHostBox``: wake-ups pushed directly (and the RNIC visits only its used traffic
  classes: ``Rnic._tc_order``).

Event sequence numbers are drawn at the same moments as in the base classes, so the heap
pops events in the same order (tests/target/test_speedups_scenarios.py compares results).
"""

from __future__ import annotations

from array import array
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

    __slots__ = ("_arrive_fn", "_heap", "_seq", "_ser")

    def _prepare(self) -> None:
        """The inlined ``send``'s state (run last in ``LinkDir.__init__``)."""
        self._arrive_fn = self._arrive
        self._heap, self._seq = self._engine.heap, self._engine.seq
        self._ser: dict[int, int] = {}  # frame length -> serialisation time (ns)

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
        ser = self._ser.get(n)
        if ser is None:  # qp.wire_ns (the rate of a link never changes)
            ser = self._ser[n] = int(((n + WIRE_OVERHEAD_BYTES) * _BITS_NS) // self.rate_bps) + 1
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
        at = t + ser + self.delay_ns  # later than now: t is now (or later), ser > 0
        heappush(self._heap, (at, next(self._seq), self._arrive_fn, self.epoch))
        return ser


class FastPortTx(PortTx):
    """A switch port transmitter with its engine, switch and TM at hand."""

    __slots__ = (
        "_dirty",
        "_engine",
        "_gen",
        "_heap",
        "_seq",
        "_state",
        "_sw",
        "_take",
        "_tm",
        "_transmit",
        "_wake_fn",
        "lazy",
    )

    def __init__(self, box: SwitchBox, port: int, link: LinkDir) -> None:
        super().__init__(box, port, link)
        self._engine = box.engine
        self._heap, self._seq = box.engine.heap, box.engine.seq
        self._sw, self._tm, self._gen = box.sw, box.tm, box.tm.pfc_gen
        tm = box.tm
        assert isinstance(tm, FastTrafficManager)
        self._take, self._transmit = tm.take, box.sw.transmit_dequeued
        self._dirty = box.queues.dirty
        self._state: Any = None  # the TM's state of this port, once it exists
        self._wake_fn = self._wake
        #: the sequence number of the wake-up at ``armed`` when it is kept off the heap: it
        #: was armed with nothing queued, so unless something comes (a kick) it finds nothing
        self.lazy: int | None = None

    def arm(self, t: int) -> None:
        """As :meth:`PortTx.arm` (the event no earlier than now, its argument ``t``)."""
        self.armed = t
        self.lazy = None  # an off-heap wake-up is superseded as a queued one goes stale
        now = self._engine.now
        heappush(self._heap, (t if t > now else now, next(self._seq), self._wake_fn, t))

    def settle(self, t: int) -> None:
        """Put an off-heap wake-up on the heap if it is still due at ``t``, else let it
        pass as it would have (it found nothing to send, so ``armed`` is cleared)."""
        s, b = self.lazy, self.armed
        self.lazy = None
        assert s is not None and b is not None
        if b > t or (b == t and s > self._engine.cur):
            heappush(self._heap, (b, s, self._wake_fn, b))
        else:
            self.armed = None

    def kick(self, t: int) -> None:
        """As :meth:`PortTx.kick`."""
        if self.lazy is not None:
            self.settle(t)
        PortTx.kick(self, t)

    def idle(self, t: int) -> bool:
        """As :meth:`PortTx.idle`."""
        if self.lazy is not None:
            self.settle(t)
        return PortTx.idle(self, t)

    def _after_drop(self, t: int) -> bytes | None:
        """The rest of :meth:`PortTx.pump`'s loop after egress dropped its first frame:
        the next frame to send, or None (the port armed as the loop would)."""
        for _ in range(MAX_EGRESS_DROPS - 1):
            got = self._take(self.port)
            if got is None:
                return None
            if got.__class__ is int:
                self.arm(got)
                return None
            frame = self._transmit(self.port, got)
            if frame is not None:
                return frame
        self.arm(t + 1)
        return None

    def _wake(self, t: int) -> None:
        """As :meth:`PortTx._wake` (the box's flush only when it has something to do)."""
        if self.armed != t:
            return
        self.armed = None
        tm, p = self._tm, self._state
        if p is None:
            p = self._state = tm.port_state(self.port)
        if (p is not None and p.queued) or self.busy_until > t or tm.generates_control:
            self.pump(t)  # else pump would find nothing to send
        if self._dirty or tm.generates_control:
            self.box.flush(t)

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
        if frame is None:  # ready_time, then transmit: one TM scan (FastTrafficManager.take)
            got = self._take(port)
            if got is None:
                return
            if got.__class__ is int:  # ready later than now (= t)
                self.arm(got)
                return
            frame = self._transmit(port, got)
            if frame is None:  # dropped by egress: try the next ones
                frame = self._after_drop(t)
                if frame is None:
                    return
        busy = self.busy_until = t + self.link.send(frame, t)
        if frame[12:14] == MAC_CONTROL:  # as PortTx.pump: the pause refresh timer
            tm.note_sent(port, frame)
            self.box.arm_refresh()
        self.armed = busy  # self.arm(busy): busy > t = now
        p = self._state
        if p is None:
            p = self._state = tm.port_state(port)
        if p is not None and not p.queued and not tm.generates_control:
            self.lazy = next(self._seq)  # nothing to send when it is due: off the heap
        else:
            heappush(self._heap, (busy, next(self._seq), self._wake_fn, busy))


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
            if track is not None and track.filled != s.n:  # s._fill_queue(track, depth - 1)
                track.depth.extend(array("q", [depth - 1]) * (s.n - track.filled))
                track.filled = s.n
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
            if track is not None and track.filled != s.n:  # s._fill_queue(track, depth + 1)
                track.depth.extend(array("q", [depth + 1]) * (s.n - track.filled))
                track.filled = s.n
        elif self.watch is not None:
            self.watch(port, priority, depth + 1)


class FastSwitchBox(SwitchBox):
    """A switch box with :class:`FastPortTx` transmitters, a cheaper ``flush`` and the
    ``FastTrafficManager``."""

    tm_class = FastTrafficManager
    queue_watch_class = FastQueueWatch

    def attach(self, port: int, link: LinkDir) -> None:
        """``link`` leaves this switch from ``port``."""
        self.tx[port] = FastPortTx(self, port, link)

    def on_frame(self, port: int, frame: bytes, t: int) -> None:
        """As :meth:`SwitchBox.on_frame`; a data frame queued to one port (the common case)
        kicks that port's transmitter without going through ``flush``."""
        if frame[12:14] == MAC_CONTROL:
            SwitchBox.on_frame(self, port, frame, t)
            return
        self.sw.receive(port, frame)
        dirty, tm = self.queues.dirty, self.tm
        if len(dirty) != 1 or tm.generates_control:
            self.flush(t)
            return
        tx = self.tx.get(dirty.pop())
        if tx is not None and tx.lazy is not None:  # type: ignore[attr-defined]
            tx.kick(t)
        elif tx is not None:  # tx.kick(t)
            busy = tx.busy_until
            a = tx.armed
            if busy > t:
                if a is None or a > busy:
                    tx.arm(busy)
            elif a is None or a > t:
                tx.pump(t)
        if dirty or tm.generates_control:
            self.flush(t)

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


class FastHostBox(HostBox):
    """An RNIC box whose wake-ups go onto the engine's heap directly."""

    __slots__ = ()

    def arm(self, t: int) -> None:
        """As :meth:`HostBox.arm`."""
        self.armed = t
        e = self.engine
        heappush(e.heap, (t if t > e.now else e.now, next(e.seq), self._wake, t))
