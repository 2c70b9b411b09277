"""InfiniBand credit-based link-level flow control per VL, for the virtual-time runtime.

IB links never drop for lack of buffer: a sender may put a packet on VL v only when the
receiver has advertised room for all of it, counted in 64-byte credits (IBTA 7.9)::

    sender (switch TM / HCA)                      receiver (next switch / HCA)
    used[v] += blocks(len)  ── packet on VL v ──►  buffered (per ingress port, VL)
    eligible iff used[v] + blocks(head) <= limit   leaves the buffer (dequeued, dropped,
    used[v] -= blocks   ◄── credit update ────────  consumed by the HCA): credits return
                        (one link delay later)

``limit`` is the receive buffer per VL (``CreditConfig.buffer_bytes_per_vl``) in credits.
A switch sender is held back through the traffic manager's ``FlowControl`` protocol
(:class:`SwitchCredits`); an HCA sender through :class:`HostGate`, its transmit FIFO.
Time a queue spends blocked with a packet waiting is the sender's stall (measured).
A data frame the link loses (down, cut in flight, a loss fault) gives its credits back as
the receiver's next credit update would (at once on a live link, when a dead one comes back
up), so a restored link is not starved by credits leaked while it was down.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emulator.control.live import LinkEvent
from emulator.errors import UserError
from emulator.ib.headers import ETHERTYPE_IB_SHIM
from emulator.target.flowcontrol import BLOCKED
from emulator.traffic.qp import wire_ns

if TYPE_CHECKING:
    from emulator.runtime.virtual.links import LinkDir
    from emulator.runtime.virtual.runtime import VirtualRuntime
    from emulator.target.tm import TrafficManager

CREDIT_BYTES = 64
_SHIM = ETHERTYPE_IB_SHIM.to_bytes(2, "big")


def blocks(length: int) -> int:
    """Credits a packet of ``length`` bytes needs (64-byte units, rounded up)."""
    return -(-length // CREDIT_BYTES)


def frame_vl(frame: bytes) -> int:
    """The VL of an IB shim frame (LRH.VL), 0 for anything else."""
    return frame[14] >> 4 if frame[12:14] == _SHIM and len(frame) > 14 else 0


@dataclass(frozen=True)
class CreditConfig:
    """Receive buffer per (port, VL) in bytes; must hold one maximum-size packet."""

    buffer_bytes_per_vl: int = 16384

    def __post_init__(self) -> None:
        if self.buffer_bytes_per_vl < 4096 + 128:
            raise UserError(
                f"IB buffer per VL {self.buffer_bytes_per_vl} B must hold a 4 KiB-MTU packet"
            )

    @property
    def limit(self) -> int:
        """Credits per VL."""
        return self.buffer_bytes_per_vl // CREDIT_BYTES


@dataclass
class LinkCredits:
    """The sender's credit account of one link direction, per VL."""

    name: str
    limit: int
    used: dict[int, int] = field(default_factory=dict)
    max_used: int = 0
    stalls: int = 0
    stalled_ns: int = 0
    _since: dict[int, int] = field(default_factory=dict)

    def fits(self, vl: int, need: int, now: int) -> bool:
        """True if ``need`` credits are available on ``vl``; tracks stall intervals."""
        if self.used.get(vl, 0) + need <= self.limit:
            since = self._since.pop(vl, None)
            if since is not None:
                self.stalled_ns += now - since
            return True
        if vl not in self._since:
            self._since[vl] = now
            self.stalls += 1
        return False

    def consume(self, vl: int, n: int) -> None:
        """A packet of ``n`` credits left on ``vl``."""
        used = self.used.get(vl, 0) + n
        self.used[vl] = used
        if used > self.max_used:
            self.max_used = used

    def release(self, vl: int, n: int) -> None:
        """A credit update for ``n`` credits on ``vl`` arrived."""
        self.used[vl] = self.used.get(vl, 0) - n


class SwitchCredits:
    """``FlowControl`` of one switch: its egress ports' credit accounts."""

    def __init__(self, tm: TrafficManager, links: dict[int, LinkCredits]) -> None:
        self.tm, self.links = tm, links

    def eligible_at(self, port: int, priority: int, now: int) -> int:
        """Now if the head packet of (port, VL) fits the receiver's credits, else BLOCKED."""
        lc = self.links.get(port)
        head = self.tm.head_length(port, priority)
        if lc is None or head is None or lc.fits(priority, blocks(head), now):
            return now
        return BLOCKED

    def on_control_frame(self, port: int, frame: bytes, now: int) -> bool:
        """Credit updates are link-internal here (no frames on the wire)."""
        return False

    def on_transmit(self, port: int, priority: int, length: int, now: int) -> None:
        """Spend the packet's credits."""
        lc = self.links.get(port)
        if lc is not None:
            lc.consume(priority, blocks(length))


class HostGate:
    """An HCA's transmit FIFO in front of its link: frames wait here for credits."""

    def __init__(self, engine: Any, link: LinkDir, credits: LinkCredits) -> None:
        self.engine, self.link, self.credits = engine, link, credits
        self.fifo: deque[bytes] = deque()
        self.max_fifo = 0
        self._armed: int | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.link, name)

    def send(self, frame: bytes, t: int) -> int:
        """Queue ``frame`` and send what the credits and the link allow now."""
        self.fifo.append(frame)
        self.max_fifo = max(self.max_fifo, len(self.fifo))
        self.drain(t)
        return wire_ns(len(frame), self.link.rate_bps)

    def drain(self, t: int) -> None:
        """Send queued frames in order while credits last; wait for the link when busy."""
        fifo, link, lc = self.fifo, self.link, self.credits
        while fifo:
            frame = fifo[0]
            vl, need = frame_vl(frame), blocks(len(frame))
            if not lc.fits(vl, need, t):
                return  # a credit update calls drain again
            if link.busy_until > t:
                if self._armed != link.busy_until:
                    self._armed = link.busy_until
                    self.engine.at(link.busy_until, self._wake, link.busy_until)
                return
            fifo.popleft()
            lc.consume(vl, need)
            link.send(frame, t)

    def _wake(self, t: int) -> None:
        if self._armed == t:
            self._armed = None
            self.drain(t)


class CreditFabric:
    """Credit accounts of every link of a virtual-time run, wired into its nodes."""

    def __init__(self, rt: VirtualRuntime, config: CreditConfig) -> None:
        self.rt, self.config = rt, config
        self.accounts: dict[tuple[str, int], LinkCredits] = {}
        self._by_rx: dict[tuple[str, int], LinkDir] = {}
        self.gates: dict[str, HostGate] = {}
        self._tm_released = False
        #: credits of frames lost while their link was down: returned when it comes back
        self._lost: dict[LinkDir, list[tuple[int, int]]] = {}
        self._install()
        rt.subscribe(self)

    def _install(self) -> None:
        rt = self.rt
        per_switch: dict[str, dict[int, LinkCredits]] = {name: {} for name in rt.boxes}
        for ld in rt.links:
            lc = LinkCredits(ld.name, self.config.limit)
            self.accounts[(ld.src, ld.src_port)] = lc
            self._by_rx[(ld.dst, ld.dst_port)] = ld
            if ld.src in rt.boxes:
                per_switch[ld.src][ld.src_port] = lc
            else:
                gate = HostGate(rt.engine, ld, lc)
                self.gates[ld.src] = gate
                rt.hosts[ld.src].link = gate
            ld.deliver = self._receiver(ld)
            ld.on_lost = functools.partial(self._on_lost, ld)
        for name, box in rt.boxes.items():
            box.tm.add_flow_control(SwitchCredits(box.tm, per_switch[name]))
            box.tm.on_buffer_release = self._on_release(name)
            box.tm.set_queue_depth(1 << 20)  # credits bound the buffer, not the queue depth

    def _receiver(self, ld: LinkDir) -> Any:
        """The link's deliver callable, releasing credits when the frame leaves the buffer."""
        inner = ld.deliver
        assert inner is not None
        box = self.rt.boxes.get(ld.dst)
        if box is None:  # an HCA consumes the packet on arrival

            def to_host(port: int, frame: bytes, t: int) -> None:
                inner(port, frame, t)
                self._credit_back(ld, frame_vl(frame), blocks(len(frame)), t)

            return to_host

        def to_switch(port: int, frame: bytes, t: int) -> None:
            self._tm_released = False
            queued = box.sw.receive(port, frame)
            if not queued and not self._tm_released:  # the pipeline dropped it
                self._credit_back(ld, frame_vl(frame), blocks(len(frame)), t)
            box.flush(t)

        return to_switch

    def _on_lost(self, ld: LinkDir, frame: bytes) -> None:
        """A data frame lost on ``ld`` never reaches the receiver's buffer: its credits come
        back with the receiver's next flow control update, which sets ABR to the sender's
        FCTBS (IBTA 7.9.4; a dead link's first update after it trains again)."""
        vl, n = frame_vl(frame), blocks(len(frame))
        if ld.is_up:
            self._credit_back(ld, vl, n, self.rt.engine.now)
        else:
            self._lost.setdefault(ld, []).append((vl, n))

    def on_link_event(self, event: LinkEvent) -> None:
        """A link came back: the credits of what it lost while down return to the senders."""
        if not event.up:
            return
        for ld in [ld for ld in self._lost if {ld.src, ld.dst} == {event.a, event.b}]:
            for vl, n in self._lost.pop(ld):
                self._credit_back(ld, vl, n, event.t_ns)

    def _on_release(self, switch: str) -> Any:
        def release(in_port: int, vl: int, length: int, now: int) -> None:
            self._tm_released = True
            ld = self._by_rx.get((switch, in_port))
            if ld is not None:
                self._credit_back(ld, vl, blocks(length), now)

        return release

    def _credit_back(self, ld: LinkDir, vl: int, n: int, t: int) -> None:
        """The credit update reaches the sender one link delay after the buffer frees."""
        self.rt.engine.at(t + ld.delay_ns, self._granted, (ld, vl, n))

    def _granted(self, arg: tuple[LinkDir, int, int]) -> None:
        ld, vl, n = arg
        self.accounts[(ld.src, ld.src_port)].release(vl, n)
        now = self.rt.engine.now
        box = self.rt.boxes.get(ld.src)
        if box is not None:
            tx = box.tx.get(ld.src_port)
            if tx is not None:
                tx.kick(now)
                box.flush(now)
        else:
            self.gates[ld.src].drain(now)

    def add_counters(
        self, hosts: dict[str, dict[str, float]], switches: dict[str, dict[str, float]]
    ) -> None:
        """Add ``credit_stalls`` / ``credit_stalled_ns`` (summed over the node's egress
        links) to the run's host and switch counters."""
        for (node, _port), lc in self.accounts.items():
            c = hosts.get(node) if node in self.gates else switches.get(node)
            if c is None:
                continue
            c["credit_stalls"] = c.get("credit_stalls", 0.0) + lc.stalls
            c["credit_stalled_ns"] = c.get("credit_stalled_ns", 0.0) + lc.stalled_ns

    def held_frames(self) -> int:
        """Frames waiting in HCA transmit FIFOs (sent by the RNIC, not yet on a wire)."""
        return sum(len(g.fifo) for g in self.gates.values())

    def stats(self) -> dict[str, dict[str, int]]:
        """Per link direction: stalls, stalled ns, most credits in use, credit limit."""
        return {
            lc.name: {"stalls": lc.stalls, "stalled_ns": lc.stalled_ns,
                      "max_used": lc.max_used, "limit": lc.limit}
            for lc in self.accounts.values()
        }  # fmt: skip
