"""Switches and RNICs as virtual-time nodes: who transmits when, who receives what.

::

    LinkDir ─deliver─► SwitchBox.on_frame ─► Switch.receive ─► TrafficManager.enqueue
                         ─► (tm.observer) QueueWatch.enqueued: dirty ports ─┐
    SwitchBox.flush ◄───────────────────────────────────────────────────────┘
                    ─► PortTx.kick(port) ─► pump: control frame, else TM ready?
                                               ─► Switch.transmit ─► LinkDir.send
    LinkDir ─deliver─► HostBox.on_frame ─► Rnic.on_frame ─► kick: Rnic.next_wakeup
                                            pump: Rnic.poll ─► LinkDir.send

A transmitter is *armed* with one pending wake-up time; a newer, earlier arm makes the
older event stale (it checks ``armed == t``). A switch port is busy for the serialisation
time of every frame it sends (the link's own pacing; the TM runs with serialize=False).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from typing import TYPE_CHECKING, Any, Protocol

from emulator.runtime.virtual.links import MAC_CONTROL, LinkDir
from emulator.target.switch import Switch
from emulator.target.tm import TrafficManager
from emulator.vocab import ECN_CE, EtherType

if TYPE_CHECKING:
    from emulator.runtime.virtual.engine import Engine
    from emulator.runtime.virtual.measure import Ledger
    from emulator.topology import SwitchNode
    from emulator.traffic.rnic import Rnic

_IPV4 = EtherType.IPV4.to_bytes(2, "big")
MAX_EGRESS_DROPS = 64  # frames one pump may see dropped by egress before yielding


class WatchedSwitch(Protocol):
    """What a :class:`QueueWatch` reads of its switch (a :class:`Switch`, or a test's stand-in)."""

    @property
    def tm(self) -> TrafficManager: ...

    def is_copy(self, item: object) -> bool: ...


class HostLink(Protocol):
    """Where a host box sends its frames: its :class:`LinkDir`, or something in front of it
    (the IB credit gate, ``emulator.ib.credits.HostGate``)."""

    def send(self, frame: bytes, t: int) -> int: ...


class QueueWatch:
    """The runtime's view of one switch's TM queues (its :class:`QueueObserver`).

    ``dirty``: ports enqueued to since the last flush (their transmitters need a kick).
    ``active``: (port, priority) -> highest depth seen, for every queue that was used.
    ``copy_drops``: frames the switch made (clones: PFC frames of the RoCE program)
    tail-dropped, so packet conservation counts RNIC frames only.
    """

    __slots__ = ("_gauges", "active", "copy_drops", "dirty", "sw", "watch")

    def __init__(self, sw: WatchedSwitch) -> None:
        self.sw = sw
        self.dirty: set[int] = set()
        self.active: dict[tuple[int, int], int] = {}
        self.copy_drops = 0
        self._gauges: list[tuple[tuple[int, int], Sized]] = []  # the sampler's view
        #: told (port, priority, depth before) of every depth change (the lazy sampler)
        self.watch: Callable[[int, int, int], None] | None = None

    def enqueued(self, port: int, priority: int, depth: int) -> None:
        """Note the port and the queue's depth."""
        if self.watch is not None:
            self.watch(port, priority, depth - 1)
        self.dirty.add(port)
        key = (port, priority)
        if depth > self.active.get(key, 0):
            self.active[key] = depth

    def dequeued(self, port: int, priority: int, depth: int) -> None:
        """Tell the lazy sampler (if any) the depth the queue had until now."""
        if self.watch is not None:
            self.watch(port, priority, depth + 1)

    def tail_dropped(self, port: int, priority: int, item: object) -> None:
        """Note the queue; count the frame if the switch made it."""
        self.active.setdefault((port, priority), 0)
        if self.sw.is_copy(item):
            self.copy_drops += 1

    def active_depths(self) -> list[tuple[tuple[int, int], int]]:
        """(port, priority) and current depth of every queue ever used (for sampling)."""
        gauges = self._gauges
        if len(gauges) != len(self.active):  # ``active`` only grows, in insertion order
            for key in list(self.active)[len(gauges) :]:
                gauges.append((key, self.sw.tm.depth_gauge(*key)))
        return [(key, len(g)) for key, g in gauges]

    def copies_queued(self) -> int:
        """Frames the switch made that are queued now."""
        tm, is_copy = self.sw.tm, self.sw.is_copy
        return sum(1 for p in tm.ports() for item in tm.queued_items(p) if is_copy(item))


class PortTx:
    """The transmitter of one switch egress port onto its link."""

    __slots__ = ("armed", "box", "busy_until", "link", "port")

    def __init__(self, box: SwitchBox, port: int, link: LinkDir) -> None:
        self.box, self.port, self.link = box, port, link
        self.armed: int | None = None
        self.busy_until = 0

    def kick(self, t: int) -> None:
        """Something may be ready on this port from ``t`` on."""
        target = self.busy_until if self.busy_until > t else t
        a = self.armed
        if a is not None and a <= target:
            return
        if target == t:
            self.pump(t)
        else:
            self.arm(target)

    def idle(self, t: int) -> bool:
        """The link is free at ``t`` and no wake-up is due at ``t`` (a kick pumps now)."""
        return self.busy_until <= t and (self.armed is None or self.armed > t)

    def arm(self, t: int) -> None:
        """Wake up at ``t`` (supersedes a later pending wake-up)."""
        self.armed = t
        self.box.engine.at(t, self._wake, t)

    def _wake(self, t: int) -> None:
        if self.armed != t:
            return
        self.armed = None
        self.pump(t)
        self.box.flush(t)

    def pump(self, t: int) -> None:
        """Send one frame if the link is idle and the TM releases one; re-arm."""
        if self.busy_until > t:
            self.arm(self.busy_until)
            return
        sw, tm, port = self.box.sw, self.box.tm, self.port
        frame = tm.pop_control_frame(port) if tm.generates_control else None
        if frame is None:
            for _ in range(MAX_EGRESS_DROPS):
                ready = tm.ready_time(port)  # Switch.transmit_ready, without the wrapper
                if ready is None:
                    return
                if ready > t:
                    self.arm(ready)
                    return
                frame = sw.transmit(port)
                if frame is not None:
                    break
            else:
                self.arm(t + 1)
                return
        self.busy_until = t + self.link.send(frame, t)
        if frame[12:14] == MAC_CONTROL:  # a pause (re)armed or ended: the refresh timer
            tm.note_sent(port, frame)
            self.box.arm_refresh()
        self.arm(self.busy_until)


class SwitchBox:
    """A built-in-target ``Switch`` with a transmitter per linked port."""

    tm_class: type[TrafficManager] = TrafficManager
    queue_watch_class: type[QueueWatch] = QueueWatch

    def __init__(
        self,
        engine: Engine,
        node: SwitchNode,
        program: Mapping[str, Any],
        priority_queues: int,
        seed: int,
    ) -> None:
        self.engine = engine
        self.name = node.name
        self.role = node.role
        self.tm = self.tm_class(engine, priority_queues, serialize=False)
        self.sw = Switch(
            dict(program),
            device_id=node.device_id,
            priority_queues=priority_queues,
            clock=engine,
            port_speed_bps=node.port_speeds_bps,
            seed=seed,
            tm=self.tm,
        )
        self.queues = self.queue_watch_class(self.sw)
        self.tm.observer = self.queues
        self.tx: dict[int, PortTx] = {}
        self.pfc_rx = 0  # PFC frames received
        self._refresh_at: int | None = None  # the pending pause refresh wake-up
        self.pfc_consumed = 0  # ... of which the program dropped (not data drops)

    def attach(self, port: int, link: LinkDir) -> None:
        """``link`` leaves this switch from ``port``."""
        self.tx[port] = PortTx(self, port, link)

    def on_frame(self, port: int, frame: bytes, t: int) -> None:
        """A frame arrived on ``port`` at ``t``."""
        sw = self.sw
        if frame[12:14] == MAC_CONTROL:
            before = sw.stats["dropped"]
            sw.receive(port, frame)
            self.pfc_rx += 1
            self.pfc_consumed += sw.stats["dropped"] - before
            tx = self.tx.get(port)
            if tx is not None:  # the pause (or resume) changes when this port may send
                tx.kick(t)
        else:
            sw.receive(port, frame)
        self.flush(t)

    def flush(self, t: int) -> None:
        """Kick the transmitters of every port that got frames (or PFC frames to send)."""
        tm = self.tm
        dirty = self.queues.dirty
        while True:
            if tm.generates_control:  # a dequeue may have generated one (XON) for an idle port
                for p in tm.control_pending():
                    tx = self.tx.get(p)
                    if tx is not None and tx.idle(t):
                        dirty.add(p)
            if not dirty:
                return
            ports = sorted(dirty)
            dirty.clear()
            for p in ports:
                tx = self.tx.get(p)
                if tx is not None:
                    tx.kick(t)

    def arm_refresh(self) -> None:
        """Wake up when the TM's next pause refresh is due (earlier than one pending)."""
        due = self.tm.control_timer()
        if due is not None and (self._refresh_at is None or due < self._refresh_at):
            self._refresh_at = due
            self.engine.at(due, self._refresh, due)

    def _refresh(self, due: int) -> None:
        if self._refresh_at != due:  # superseded by an earlier wake-up
            return
        self._refresh_at = None
        for p in self.tm.fire_control_timers():
            tx = self.tx.get(p)
            if tx is not None:
                tx.kick(due)
        self.flush(due)
        self.arm_refresh()

    def kick_all(self, t: int) -> None:
        """Re-examine every port (after a command changed rates, depths or PFC)."""
        for tx in self.tx.values():
            tx.kick(t)
        self.flush(t)


class HostBox:
    """An emulated RNIC on its host link."""

    __slots__ = ("armed", "engine", "ledger", "link", "name", "nic")

    def __init__(self, engine: Engine, name: str, nic: Rnic, ledger: Ledger) -> None:
        self.engine, self.name, self.nic, self.ledger = engine, name, nic, ledger
        self.link: HostLink | None = None
        self.armed: int | None = None

    def on_frame(self, port: int, frame: bytes, t: int) -> None:
        """A frame arrived from the leaf."""
        if frame[12:14] == _IPV4 and frame[15] & 3 == ECN_CE:
            self.ledger.ce_delivered += 1
        self.nic.on_frame(frame, t)
        self.kick(t)

    def kick(self, t: int) -> None:
        """The RNIC may have something to send (or a timer) earlier than armed."""
        nxt = self.nic.next_wakeup()
        if nxt is None:
            return
        if nxt < t:
            nxt = t
        a = self.armed
        if a is not None and a <= nxt:
            return
        if nxt == t:
            self.pump(t)
        else:
            self.arm(nxt)

    def arm(self, t: int) -> None:
        """Wake up at ``t``."""
        self.armed = t
        self.engine.at(t, self._wake, t)

    def _wake(self, t: int) -> None:
        if self.armed != t:
            return
        self.armed = None
        self.pump(t)

    def pump(self, t: int) -> None:
        """Poll the RNIC once; send what it gives; re-arm at its next wake-up."""
        frame = self.nic.poll(t)
        if frame is not None and self.link is not None:
            self.link.send(frame, t)
        nxt = self.nic.next_wakeup()
        if nxt is None:
            return
        self.arm(nxt if nxt > t else t + 1)
