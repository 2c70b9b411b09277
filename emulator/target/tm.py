"""The built-in target's traffic manager: per-port strict-priority egress queues.

Modelled on simple_switch ``--priority-queues N`` (BMv2 ``QueueingLogicPriRL``):

    enqueue(port, prio, item) ──► port P:  [N-1] highest ─┐
                                           [ ... ]        ├─ strict priority ─► dequeue(P)
                                           [ 0 ] lowest  ─┘   among *eligible* queues
    eligible = head's rate slot has come  AND  every FlowControl (PFC, ...) lets it send

* Queue ``0`` is the lowest priority, ``N-1`` the highest. A priority ``>= N`` is dropped
  (simple_switch logs "Priority out of range, dropping packet" and drops it).
* Depth per queue in packets, default 64 (simple_switch's egress buffer capacity); a full
  queue tail-drops. Depths and rates are set per port, per (port, priority) or for all.
* Rate in packets/s, ``0`` = unlimited. As in BMv2 the departure slot is stamped at
  enqueue: ``send_at = max(now, previous send_at + 1/rate)``.
* ``enq_qdepth`` is the queue's size before the push, ``deq_qdepth`` after the pop, in
  packets; times are integer ns from the injected clock (the switch converts to us).
* A runtime watches the queues through a :class:`QueueObserver` (``tm.observer``): told of
  every frame enqueued (with the queue's new depth) and every frame tail-dropped.
* Optional line-rate serialisation (``serialize=True``): after a frame of L bytes leaves,
  the port is busy for (L + 24) * 8 / speed (FCS 4 + preamble 8 + inter-frame gap 12).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sized
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from emulator.errors import UserError
from emulator.target.flowcontrol import BLOCKED, FlowControl
from emulator.target.pfc import PfcFlowControl
from emulator.target.pfc_gen import PfcGenerator, PfcThresholds
from emulator.target.pfc_refresh import PauseRefresher
from emulator.vocab import WIRE_OVERHEAD_BYTES, EtherType

DEFAULT_QUEUE_DEPTH = 64  # packets, simple_switch's egress_buffers capacity
DEFAULT_SPEED_BPS = 10e9
MAX_PRIORITY_QUEUES = 32  # BMv2 keeps at most 32 priority queues per worker
_MAC_CONTROL = EtherType.MAC_CONTROL.to_bytes(2, "big")


class Dequeued(NamedTuple):
    """A frame released by the TM with the queueing metadata simple_switch exposes.

    A NamedTuple rather than a frozen dataclass: one is made per frame, and this is the
    cheaper immutable record to build."""

    item: Any  # not ``object``: mypyc's NamedTuple support cannot resolve that name
    priority: int
    enq_timestamp_ns: int
    enq_qdepth: int
    deq_qdepth: int
    deq_timedelta_ns: int


@dataclass(frozen=True)
class QueueStats:
    """Counters of one (port, priority) queue."""

    enqueued: int
    dequeued: int
    dropped: int
    pause_frames: int
    paused_ns: int
    pfc_xoff_sent: int = 0
    pfc_xon_sent: int = 0


class QueueObserver(Protocol):
    """What a runtime sees of a TM's queues as frames come in (``TrafficManager.observer``)."""

    def enqueued(self, port: int, priority: int, depth: int) -> None:
        """A frame joined queue (port, priority), now ``depth`` packets deep."""

    def tail_dropped(self, port: int, priority: int, item: object) -> None:
        """``item`` found queue (port, priority) full and was dropped."""

    def dequeued(self, port: int, priority: int, depth: int) -> None:
        """A frame left queue (port, priority), now ``depth`` packets deep."""


@dataclass
class _Queue:
    """One priority queue: entries are (send_at, item, length, enq_ts, enq_qdepth, in_port)."""

    capacity: int
    interval_ns: int
    entries: deque[tuple[int, object, int, int, int, int | None]] = field(default_factory=deque)
    last_send_at: int | None = None
    enqueued: int = 0
    dequeued: int = 0
    dropped: int = 0


@dataclass
class _Port:
    speed_bps: float
    queues: list[_Queue]
    busy_until: int = 0
    dropped_bad_priority: int = 0
    queued: int = 0  # frames in all its queues (an empty port answers at once)


def _interval_ns(pps: float) -> int:
    """Packet spacing for ``pps`` (0 = unlimited), truncated to ns like BMv2's ticks."""
    if pps < 0:
        raise UserError(f"queue rate must be >= 0 packets/s, got {pps}")
    return 0 if pps == 0 else int(1e9 / pps)


class TrafficManager:
    """Egress queues of every port of one switch, driven by an injected ns clock."""

    def __init__(
        self,
        clock: Callable[[], int],
        priority_queues: int = 1,
        *,
        serialize: bool = False,
    ) -> None:
        if not 1 <= priority_queues <= MAX_PRIORITY_QUEUES:
            raise UserError(
                f"--priority-queues must be 1..{MAX_PRIORITY_QUEUES}, got {priority_queues}"
            )
        self._clock = clock
        self.priority_queues = priority_queues
        self.serialize = serialize
        self._ports: dict[int, _Port] = {}
        self._default_depth = DEFAULT_QUEUE_DEPTH
        self._default_interval = 0
        self.pfc = PfcFlowControl(DEFAULT_SPEED_BPS)
        self.pfc_gen = PfcGenerator()
        #: the MAC's pause refresh timer: runtimes report sent frames (``note_sent``) and
        #: run it (``control_timer`` / ``fire_control_timers``)
        self.pfc_refresh = PauseRefresher()
        self.pfc_gen.refresher = self.pfc_refresh
        #: told (ingress port, priority, now) when a frame from that port is queued /
        #: leaves its queue: PFC generation's occupancy (``tm_fast`` puts a cheaper one)
        self._pfc_queued: Callable[[int, int, int], None] = self.pfc_gen.on_enqueue
        self._pfc_left: Callable[[int, int, int], None] = self.pfc_gen.on_dequeue
        self._flow_controls: list[FlowControl] = [self.pfc]
        #: called as (ingress port, priority, length, now) when a frame that arrived on an
        #: ingress port leaves the buffer (dequeued or tail-dropped): receive-side buffer
        #: accounting for credit-based flow control (InfiniBand, :mod:`emulator.ib.credits`)
        self.on_buffer_release: Callable[[int, int, int, int], None] | None = None
        #: told of enqueues and tail drops (a runtime's queue bookkeeping), when set
        self.observer: QueueObserver | None = None
        #: True once PFC generation was configured: poll ``pop_control_frame`` then
        self.generates_control = False

    # -- configuration -------------------------------------------------------------------

    def add_port(self, port: int, speed_bps: float = DEFAULT_SPEED_BPS) -> None:
        """Create ``port``'s queues (idempotent: an existing port only changes speed)."""
        if speed_bps <= 0:
            raise UserError(f"port {port}: speed must be positive, got {speed_bps}")
        p = self._ports.get(port)
        if p is None:
            queues = [
                _Queue(self._default_depth, self._default_interval)
                for _ in range(self.priority_queues)
            ]
            self._ports[port] = _Port(speed_bps, queues)
        else:
            p.speed_bps = speed_bps
        self.pfc.set_speed(port, speed_bps)
        self.pfc_gen.set_speed(port, speed_bps)

    def add_flow_control(self, scheme: FlowControl) -> None:
        """Register another link-level scheme (e.g. InfiniBand VL credits) beside PFC."""
        self._flow_controls.append(scheme)

    def ports(self) -> list[int]:
        """Ports known to the TM, sorted."""
        return sorted(self._ports)

    def _port(self, port: int) -> _Port:
        p = self._ports.get(port)
        if p is None:  # like BMv2, any egress port id gets queues on first use
            self.add_port(port)
            p = self._ports[port]
        return p

    def _targets(self, port: int | None, priority: int | None) -> list[_Queue]:
        if priority is not None:
            if port is None:
                raise UserError("a queue priority needs a port")
            if not 0 <= priority < self.priority_queues:
                raise UserError(f"priority {priority} out of range 0..{self.priority_queues - 1}")
            return [self._port(port).queues[priority]]
        if port is not None:
            return list(self._port(port).queues)
        return [q for p in self._ports.values() for q in p.queues]

    def set_queue_rate(
        self, pps: float, port: int | None = None, priority: int | None = None
    ) -> None:
        """Limit queue(s) to ``pps`` packets/s (0 = unlimited); no port = all, also future."""
        interval = _interval_ns(pps)
        if port is None:
            self._default_interval = interval
        for q in self._targets(port, priority):
            q.interval_ns = interval

    def set_queue_depth(
        self, pkts: int, port: int | None = None, priority: int | None = None
    ) -> None:
        """Set queue capacity in packets; frames already queued beyond it stay queued."""
        if pkts < 0:
            raise UserError(f"queue depth must be >= 0 packets, got {pkts}")
        if port is None:
            self._default_depth = pkts
        for q in self._targets(port, priority):
            q.capacity = pkts

    def set_pfc(self, port: int, enabled: bool) -> None:
        """Honour (True) or ignore PFC frames received on ``port``."""
        self._port(port)
        self.pfc.set_enabled(port, enabled, self._clock())

    def set_pfc_thresholds(
        self, port: int, xoff: int | None, xon: int = 0, quanta: int = 0xFFFF
    ) -> None:
        """Generate PFC back out of ``port`` when its arrivals queue up (None: stop).

        Counts frames enqueued with ``ingress_port=port``; see :mod:`pfc_gen`.
        """
        self._port(port)
        try:
            cfg = None if xoff is None else PfcThresholds(xoff, xon, quanta)
        except ValueError as exc:
            raise UserError(f"port {port}: {exc}") from None
        self.pfc_gen.configure(port, cfg)
        self.generates_control = True

    # -- data path -----------------------------------------------------------------------

    def enqueue(
        self,
        port: int,
        priority: int,
        item: object,
        length: int,
        ingress_port: int | None = None,
    ) -> bool:
        """Queue ``item`` (``length`` bytes) for ``port``; False if dropped (full/bad prio).

        ``ingress_port`` (optional) feeds switch-side PFC generation for that port.
        """
        p = self._port(port)
        if not 0 <= priority < self.priority_queues:
            p.dropped_bad_priority += 1
            return False
        q = p.queues[priority]
        if len(q.entries) >= q.capacity:
            q.dropped += 1
            if ingress_port is not None and self.on_buffer_release is not None:
                self.on_buffer_release(ingress_port, priority, length, self._clock())
            if self.observer is not None:
                self.observer.tail_dropped(port, priority, item)
            return False
        now = self._clock()
        send_at = now
        if q.last_send_at is not None and q.last_send_at + q.interval_ns > now:
            send_at = q.last_send_at + q.interval_ns
        q.last_send_at = send_at
        q.entries.append((send_at, item, length, now, len(q.entries), ingress_port))
        q.enqueued += 1
        p.queued += 1
        if ingress_port is not None:
            self._pfc_queued(ingress_port, priority, now)
        if self.observer is not None:
            self.observer.enqueued(port, priority, len(q.entries))
        return True

    def _eligible_at(self, port: int, priority: int, now: int) -> int:
        t = now
        for fc in self._flow_controls:
            t = max(t, fc.eligible_at(port, priority, now))
        return t

    def port_state(self, port: int) -> _Port | None:
        """``port``'s live state (``queued``: frames in all its queues), if it exists yet."""
        return self._ports.get(port)

    def head_length(self, port: int, priority: int) -> int | None:
        """Length in bytes of the frame at the head of queue (port, priority), if any."""
        p = self._ports.get(port)
        if p is None or not p.queues[priority].entries:
            return None
        return p.queues[priority].entries[0][2]

    def ready_time(self, port: int) -> int | None:
        """Earliest ns a frame may leave ``port``; None if empty or blocked on an event."""
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        now = self._clock()
        best: int | None = None
        for prio in range(self.priority_queues - 1, -1, -1):
            q = p.queues[prio]
            if not q.entries:
                continue
            t = max(q.entries[0][0], self._eligible_at(port, prio, now))
            if t >= BLOCKED:
                continue
            if best is None or t < best:
                best = t
            if best <= now:
                break
        if best is None:
            return None
        if self.serialize:
            best = max(best, p.busy_until)
        return max(best, now)

    def dequeue(self, port: int) -> Dequeued | None:
        """Pop the highest-priority eligible frame of ``port``; None if none may leave now."""
        p = self._ports.get(port)
        if p is None or not p.queued:
            return None
        now = self._clock()
        if self.serialize and p.busy_until > now:
            return None
        for prio in range(self.priority_queues - 1, -1, -1):
            q = p.queues[prio]
            if not q.entries or q.entries[0][0] > now:
                continue
            if self._eligible_at(port, prio, now) > now:
                continue
            _send_at, item, length, enq_ts, enq_qdepth, in_port = q.entries.popleft()
            q.dequeued += 1
            p.queued -= 1
            if self.observer is not None:
                self.observer.dequeued(port, prio, len(q.entries))
            if in_port is not None:
                self._pfc_left(in_port, prio, now)
                if self.on_buffer_release is not None:
                    self.on_buffer_release(in_port, prio, length, now)
            for fc in self._flow_controls:
                fc.on_transmit(port, prio, length, now)
            if self.serialize:
                bits = (length + WIRE_OVERHEAD_BYTES) * 8
                p.busy_until = now + -(-bits * 1_000_000_000 // round(p.speed_bps))
            return Dequeued(item, prio, enq_ts, enq_qdepth, len(q.entries), now - enq_ts)
        return None

    def on_pfc_frame(self, port: int, frame: bytes) -> bool:
        """Apply an 802.1Qbb frame received on ``port`` (if PFC is on there); True if PFC."""
        self._port(port)
        return self.pfc.on_control_frame(port, frame, self._clock())

    def on_control_frame(self, port: int, frame: bytes) -> bool:
        """Offer a received frame to every flow-control scheme; True if one consumed it."""
        now = self._clock()
        return any(fc.on_control_frame(port, frame, now) for fc in self._flow_controls)

    def control_pending(self) -> list[int]:
        """Ports with generated PFC frames waiting (send them ahead of data)."""
        return self.pfc_gen.pending_ports()

    def pop_control_frame(self, port: int) -> bytes | None:
        """Next generated PFC frame to send out of ``port``, or None."""
        return self.pfc_gen.pop_frame(port)

    def note_sent(self, port: int, frame: bytes) -> None:
        """``frame`` left ``port`` now: a PFC frame arms (XOFF) or stops (XON) its refresh."""
        if frame[12:14] == _MAC_CONTROL:
            speed = self._ports[port].speed_bps if port in self._ports else DEFAULT_SPEED_BPS
            self.pfc_refresh.on_sent(port, frame, self._clock(), speed)

    def control_timer(self) -> int | None:
        """Earliest ns a pause refresh is due (call ``fire_control_timers`` then), or None."""
        return self.pfc_refresh.next_due()

    def fire_control_timers(self) -> list[int]:
        """Queue the refreshes due now ahead of data; the ports that got one."""
        ports = []
        for port, frame in self.pfc_refresh.due(self._clock()):
            self.pfc_gen.push(port, frame)
            self.generates_control = True
            ports.append(port)
        return ports

    # -- observation ---------------------------------------------------------------------

    def depth(self, port: int, priority: int | None = None) -> int:
        """Packets queued on ``port`` (one priority, or all of them)."""
        p = self._ports.get(port)
        if p is None:
            return 0
        if priority is not None:
            return len(p.queues[priority].entries)
        return sum(len(q.entries) for q in p.queues)

    def depth_gauge(self, port: int, priority: int) -> Sized:
        """A live view of queue (port, priority): its ``len()`` is the depth, at any time.

        For periodic sampling of many queues without a method call per queue."""
        return self._port(port).queues[priority].entries

    def queued_items(self, port: int) -> Iterator[object]:
        """The items queued on ``port`` now, every priority (end-of-run accounting)."""
        p = self._ports.get(port)
        for q in p.queues if p else ():
            for entry in q.entries:
                yield entry[1]

    def dropped_bad_priority(self, port: int) -> int:
        """Frames dropped on ``port`` because their priority was >= priority_queues."""
        p = self._ports.get(port)
        return p.dropped_bad_priority if p else 0

    def stats(self) -> dict[tuple[int, int], QueueStats]:
        """Counters per (port, priority): queue counters, PFC frames received on the port
        and time paused so far, PFC XOFF/XON frames the port generated for that class."""
        now = self._clock()
        out: dict[tuple[int, int], QueueStats] = {}
        for port in sorted(self._ports):
            for prio, q in enumerate(self._ports[port].queues):
                xoff, xon = self.pfc_gen.sent(port, prio)
                out[(port, prio)] = QueueStats(
                    pfc_xoff_sent=xoff,
                    pfc_xon_sent=xon,
                    enqueued=q.enqueued,
                    dequeued=q.dequeued,
                    dropped=q.dropped,
                    pause_frames=self.pfc.pause_frames(port, prio),
                    paused_ns=self.pfc.paused_ns(port, prio, now),
                )
        return out
