"""One direction of one link in virtual time: serialisation, propagation, failure.

::

    transmitter (switch port / RNIC)            receiver
        │ send(frame, t)                            ▲ deliver(port, frame, t_arrive)
        ▼                                           │
      [serialise (len + 24 B) * 8 / rate] ─► [propagate delay_ns] ─► wire FIFO ─┘
                t_arrive = t + wire_ns(len, rate) + delay_ns

The 24 bytes are FCS + preamble/SFD + inter-frame gap, as the RNIC and the switch TM
count them (``emulator.traffic.qp.wire_ns``). A direction is FIFO with a constant delay, so
frames in flight wait in a deque and each arrival event only carries the link's epoch:
``fail()`` bumps the epoch and empties the deque (those frames are counted as drops);
frames sent while the link is down are counted and dropped at once.

With ``pcap_out`` / ``pcap_in`` set, frames are also written with their virtual time (ns
since start: pcap shows dates in January 1970) when sent / when delivered.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from emulator.traffic.qp import wire_ns
from emulator.vocab import EtherType

if TYPE_CHECKING:
    from emulator.runtime.virtual.engine import Engine
    from emulator.runtime.virtual.lazysample import LazySampler
    from emulator.runtime.virtual.measure import Ledger
    from emulator.target.pcap import PcapWriter

MAC_CONTROL = EtherType.MAC_CONTROL.to_bytes(2, "big")  # PFC / PAUSE frames

Deliver = Callable[[int, bytes, int], None]  # (port, frame, now_ns)


class LinkDir:
    """``src:src_port -> dst:dst_port``: counters, the wire, up/down state."""

    __slots__ = (
        "_engine",
        "_ledger",
        "_wire",
        "busy_ns",
        "busy_until",
        "bytes",
        "delay_ns",
        "deliver",
        "delivered",
        "delivered_bytes",
        "dropped",
        "dropped_pfc",
        "dst",
        "dst_port",
        "epoch",
        "impair",
        "is_up",
        "kind",
        "on_lost",
        "packets",
        "pcap_in",
        "pcap_out",
        "pfc_frames",
        "rate_bps",
        "sample_out",
        "sample_prev",
        "sampled",
        "src",
        "src_port",
        "up",
        "uplink",
        "watch",
    )  # fmt: skip

    def __init__(
        self,
        engine: Engine,
        ledger: Ledger,
        src: str,
        src_port: int,
        dst: str,
        dst_port: int,
        *,
        kind: str,
        up: bool,
        rate_bps: float,
        delay_ns: int,
        uplink: str | None = None,
    ) -> None:
        self.src, self.src_port, self.dst, self.dst_port = src, src_port, dst, dst_port
        self.kind, self.up = kind, up
        self.rate_bps, self.delay_ns = float(rate_bps), int(delay_ns)
        self.bytes = self.packets = self.pfc_frames = 0
        self.busy_ns = self.busy_until = 0  # serialisation time spent; end of the last frame
        self.dropped = self.dropped_pfc = 0
        self.delivered = self.delivered_bytes = 0  # frames / bytes that reached ``dst``
        self.is_up = True
        self.epoch = 0
        #: "rtsw0:5" when this is a leaf's uplink (frames leaving are attributed to flows)
        self.uplink = uplink
        self._wire: deque[bytes] = deque()
        self._engine = engine
        self._ledger = ledger
        self.deliver: Deliver | None = None
        #: optional pcap writers: frames sent (at the switch egress) / received (at ingress)
        self.pcap_out: PcapWriter | None = None
        self.pcap_in: PcapWriter | None = None
        #: a lazy sampler filling in this direction's samples before it changes (lazysample)
        self.watch: LazySampler | None = None
        self.sampled = self.sample_prev = 0  # the lazy sampler's: samples filled, busy_ns then
        self.sample_out: Any = None  # ... and its utilisation series of this direction
        #: fault injection (emulator.target.impair): data frame -> frame (maybe altered) or
        #: None (lost, counted in ``dropped``); None = a clean link
        self.impair: Callable[[bytes], bytes | None] | None = None
        #: told of every data frame the link loses (down, cut in flight, impaired): the IB
        #: credit accounts give its credits back as IBTA's ABR re-synchronisation does
        self.on_lost: Callable[[bytes], None] | None = None
        self._prepare()

    def _prepare(self) -> None:
        """A subclass's own set-up, run last in ``__init__`` (so that it needs no
        constructor of its own forwarding ``*args``, which mypyc's classes refuse)."""

    @property
    def name(self) -> str:
        """``src:port->dst:port``."""
        return f"{self.src}:{self.src_port}->{self.dst}:{self.dst_port}"

    def send(self, frame: bytes, t: int) -> int:
        """Put ``frame`` on the wire at ``t``; returns its serialisation time (ns)."""
        ser = wire_ns(len(frame), self.rate_bps)
        w = self.watch
        if w is not None and self.sampled != w.n:
            w.fill_link(self)
        self.bytes += len(frame)
        self.packets += 1
        self.busy_ns += ser
        self.busy_until = t + ser
        if self.pcap_out is not None:
            self.pcap_out.write(frame, t)
        pfc = frame[12:14] == MAC_CONTROL
        if pfc:
            self.pfc_frames += 1
            self._ledger.on_pfc(self, frame, t)
        elif self.uplink is not None:
            self._ledger.attribute(self.uplink, frame)
        if not self.is_up:
            if pfc:
                self.dropped_pfc += 1
            else:
                self._lose(frame)
            return ser
        if self.impair is not None and not pfc:
            impaired = self.impair(frame)
            if impaired is None:
                self._lose(frame)
                return ser
            frame = impaired
        self._wire.append(frame)
        self._engine.at(t + ser + self.delay_ns, self._arrive, self.epoch)
        return ser

    def _arrive(self, epoch: int) -> None:
        if epoch != self.epoch:
            return  # sent before a failure: already counted as dropped
        frame = self._wire.popleft()
        self.delivered += 1
        self.delivered_bytes += len(frame)
        now = self._engine.now
        if self.pcap_in is not None:
            self.pcap_in.write(frame, now)
        self.deliver(self.dst_port, frame, now)  # type: ignore[misc]  # wired before any send

    def busy_at(self, t: int) -> int:
        """Serialisation time spent up to ``t`` (the current frame counted in part)."""
        rest = self.busy_until - t
        return self.busy_ns - rest if rest > 0 else self.busy_ns

    def in_flight(self) -> tuple[int, int]:
        """Frames on the wire now: (data frames, PFC frames)."""
        pfc = sum(1 for f in self._wire if f[12:14] == MAC_CONTROL)
        return len(self._wire) - pfc, pfc

    def _lose(self, frame: bytes) -> None:
        self.dropped += 1
        if self.on_lost is not None:
            self.on_lost(frame)

    def fail(self) -> None:
        """Take the direction down; frames in flight are lost (counted)."""
        for frame in self._wire:
            if frame[12:14] == MAC_CONTROL:
                self.dropped_pfc += 1
            else:
                self._lose(frame)
        self._wire.clear()
        self.epoch += 1
        self.is_up = False

    def restore(self) -> None:
        """Bring the direction back up."""
        self.is_up = True
