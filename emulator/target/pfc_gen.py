"""Switch-side PFC generation: XOFF/XON per (ingress port, priority) occupancy.

A lossless switch pauses its upstream neighbour when the frames that *arrived* on a port
with a given priority pile up in its buffers, and resumes it once they drain:

    upstream ──frames (prio p)──► ingress port I ──► queues of any egress port
        ▲                                  │ occupancy(I, p) = admitted, not yet sent
        └── PFC(class p, quanta) ──────────┘ >= xoff: pause   <= xon: resume (quanta 0)

Opt-in per ingress port (``configure``). While still congested, a pause is refreshed by
the MAC's timer (:mod:`pfc_refresh`, once the runtime reports the XOFF sent) or, without
it, on the next enqueue/dequeue event once half of the announced pause time has passed. Frames
wait in a per-port control queue that the transmitter sends ahead of data
(``pop_frame``). Priorities >= 8 have no PFC class and never generate.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from emulator.target.pfc_refresh import PauseRefresher
from emulator.vocab.pfc import PFC_CLASSES, encode_pfc, quanta_to_ns


@dataclass(frozen=True)
class PfcThresholds:
    """Per ingress port: pause at ``xoff`` queued packets, resume at ``xon``."""

    xoff: int
    xon: int
    quanta: int = 0xFFFF

    def __post_init__(self) -> None:
        if not 0 <= self.xon < self.xoff:
            raise ValueError(
                f"PFC thresholds need 0 <= xon < xoff, got xon={self.xon} xoff={self.xoff}"
            )
        if not 1 <= self.quanta <= 0xFFFF:
            raise ValueError(f"PFC pause quanta must be 1..65535, got {self.quanta}")


@dataclass
class _ClassGen:
    occupancy: int = 0
    paused_until: int | None = None  # what we last told upstream; None = not paused
    xoff_sent: int = 0
    xon_sent: int = 0


def default_mac(port: int) -> bytes:
    """A locally administered source MAC for frames sent by switch port ``port``."""
    return bytes([0x02, 0xFA, 0xBE, 0x00, (port >> 8) & 0xFF, port & 0xFF])


class PfcGenerator:
    """Tracks occupancy per (ingress port, class) and queues PFC frames to send back."""

    def __init__(self) -> None:
        self._cfg: dict[int, PfcThresholds] = {}
        self._speed: dict[int, float] = {}
        self._mac: dict[int, bytes] = {}
        self._state: dict[tuple[int, int], _ClassGen] = {}
        #: port -> generated PFC frames waiting to be sent (``pop_frame`` takes them)
        self.frames: dict[int, deque[bytes]] = {}
        #: the MAC's refresh timer, when the runtime reports sent frames to it
        self.refresher: PauseRefresher | None = None
        #: (port, class) -> frames queued, when the TM does not report them (``tm_fast``
        #: before generation is configured): ``occupancy`` asks it
        self.count_queued: Callable[[int, int], int] | None = None

    def configure(self, port: int, thresholds: PfcThresholds | None) -> None:
        """Generate PFC for frames arriving on ``port`` (None: stop generating)."""
        if thresholds is None:
            self._cfg.pop(port, None)
        else:
            self._cfg[port] = thresholds

    def set_speed(self, port: int, speed_bps: float) -> None:
        """Speed of ``port`` (turns quanta into the pause time the neighbour will apply)."""
        self._speed[port] = speed_bps

    def set_mac(self, port: int, mac: bytes) -> None:
        """Source MAC of PFC frames sent from ``port``."""
        self._mac[port] = bytes(mac)

    def _st(self, port: int, cls: int) -> _ClassGen:
        st = self._state.get((port, cls))
        if st is None:
            st = self._state[(port, cls)] = _ClassGen()
        return st

    def _emit(self, port: int, cls: int, quanta: int) -> None:
        vec = [0] * PFC_CLASSES
        vec[cls] = quanta
        self.push(port, encode_pfc(self._mac.get(port, default_mac(port)), 1 << cls, vec))

    def _check(self, port: int, cls: int, now: int) -> None:
        cfg = self._cfg.get(port)
        if cfg is None or cls >= PFC_CLASSES:
            return
        st = self._st(port, cls)
        renewed = self.refresher is not None and self.refresher.paused(port, cls)
        if st.occupancy >= cfg.xoff:
            if renewed:  # the timer keeps the neighbour paused
                return
            pause_ns = quanta_to_ns(cfg.quanta, self._speed.get(port, 10e9))
            if st.paused_until is None or now >= st.paused_until - pause_ns // 2:
                self._emit(port, cls, cfg.quanta)
                st.paused_until = now + pause_ns
                st.xoff_sent += 1
        elif st.occupancy <= cfg.xon and st.paused_until is not None:
            if renewed or now < st.paused_until:  # still paused upstream: release it
                self._emit(port, cls, 0)
                st.xon_sent += 1
            st.paused_until = None

    def on_enqueue(self, ingress_port: int, priority: int, now: int) -> None:
        """A frame from ``ingress_port`` with ``priority`` was admitted to some queue."""
        self._st(ingress_port, priority).occupancy += 1
        self._check(ingress_port, priority, now)

    def on_dequeue(self, ingress_port: int, priority: int, now: int) -> None:
        """That frame left its queue."""
        st = self._st(ingress_port, priority)
        st.occupancy -= 1
        self._check(ingress_port, priority, now)

    def push(self, port: int, frame: bytes) -> None:
        """Queue a control frame made elsewhere (a timer's refresh) to send out of ``port``."""
        self.frames.setdefault(port, deque()).append(frame)

    def pending_ports(self) -> list[int]:
        """Ports with PFC frames waiting to be sent."""
        return [p for p, q in self.frames.items() if q]

    def pop_frame(self, port: int) -> bytes | None:
        """Next PFC frame to send out of ``port``, or None."""
        q = self.frames.get(port)
        return q.popleft() if q else None

    def occupancy(self, port: int, priority: int) -> int:
        """Frames from ``port`` with ``priority`` currently queued."""
        if self.count_queued is not None:
            return self.count_queued(port, priority)
        st = self._state.get((port, priority))
        return st.occupancy if st else 0

    def sent(self, port: int, priority: int) -> tuple[int, int]:
        """(XOFF, XON) frames generated for (port, class)."""
        st = self._state.get((port, priority))
        return (st.xoff_sent, st.xon_sent) if st else (0, 0)
