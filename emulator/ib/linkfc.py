"""InfiniBand credit flow control between processes: flow-control packets (FCPs) on the wire.

The virtual-time runtime moves credit updates inside one process (:mod:`emulator.ib.credits`).
In the Mininet runtime every switch and every HCA is its own process, so credits travel as
IB flow control packets (IBTA 7.9.4) carried in the 0x88B5 shim, one per (link, VL)::

    Ether(dst 01:80:c2:00:00:01, src, 0x88B5) | Op 4 | FCTBS 12 | VL 4 | FCCL 12 | LPCRC 16 | pad

A real IB link tells link packets from data packets by their start delimiter; here the
link-local destination MAC does (data frames carry the destination HCA's MAC), and Op 0 is
IB's "normal flow control packet". Accounting per link end and VL, in 64-byte blocks:

    sender:   FCTBS = blocks sent; may send n blocks iff FCTBS + n <= FCCL (the last limit
              the receiver advertised; the link starts with FCCL = the buffer)
    receiver: ABR = blocks received, set to the sender's FCTBS from each FCP (a lost data
              frame then frees its credits instead of leaking them); FCCL = ABR + free blocks

Each FCP carries its sender's FCTBS (for its own direction) and FCCL (for the opposite one).
The 12-bit fields wrap (mod 4096), so a VL's buffer must stay below 2048 blocks (128 KiB).
An FCP goes out when a quarter of the buffer has been freed since the last one, within
``REFRESH_NS`` of any other change, and every ``KEEPALIVE_NS`` (recovers a lost FCP).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from emulator.errors import UserError
from emulator.ib.credits import CreditConfig, blocks, frame_vl
from emulator.ib.framing import vcrc
from emulator.ib.headers import ETHERTYPE_IB_SHIM
from emulator.target.flowcontrol import BLOCKED

FCP_DST_MAC = bytes.fromhex("0180c2000001")  # link-local: never forwarded
FCP_OP_NORMAL = 0
MOD = 4096  # FCTBS / FCCL are 12-bit counters
MAX_LIMIT = MOD // 2 - 1
REFRESH_NS = 2_000_000
KEEPALIVE_NS = 250_000_000
_SHIM = ETHERTYPE_IB_SHIM.to_bytes(2, "big")
_FCP = struct.Struct("!HHH")
_MIN_FRAME = 60


@dataclass(frozen=True)
class Fcp:
    """One decoded flow control packet."""

    op: int
    fctbs: int
    vl: int
    fccl: int


def encode_fcp(src_mac: bytes, fcp: Fcp) -> bytes:
    """The shim frame carrying ``fcp`` (LPCRC: the VCRC's CRC-16 over the 4 FCP bytes)."""
    body = struct.pack("!HH", fcp.op << 12 | fcp.fctbs % MOD, fcp.vl << 12 | fcp.fccl % MOD)
    frame = FCP_DST_MAC + src_mac + _SHIM + body + struct.pack("!H", vcrc(body))
    return frame.ljust(_MIN_FRAME, b"\x00")


def decode_fcp(frame: bytes) -> Fcp | None:
    """The FCP in ``frame``; None if it is no FCP or its LPCRC is wrong."""
    if len(frame) < 20 or frame[12:14] != _SHIM or frame[0:6] != FCP_DST_MAC:
        return None
    a, b, crc = _FCP.unpack_from(frame, 14)
    if vcrc(frame[14:18]) != crc:
        return None
    return Fcp(a >> 12, a & 0xFFF, b >> 12, b & 0xFFF)


def is_fcp(frame: bytes) -> bool:
    """True for a frame of the link-local flow control address in the IB shim."""
    return frame[12:14] == _SHIM and frame[0:6] == FCP_DST_MAC


def _signed(delta: int) -> int:
    """A 12-bit difference as a signed number in (-2048, 2048]."""
    delta %= MOD
    return delta - MOD if delta > MOD // 2 else delta


@dataclass
class VlState:
    """Both directions of one (link end, VL): the sender's account and the receive buffer."""

    limit: int
    fctbs: int = 0  # blocks sent
    fccl: int = -1  # credit limit from the peer (absolute; -1: the initial buffer)
    abr: int = 0  # blocks received (adjusted to the peer's FCTBS)
    buffered: int = 0  # received blocks still in our buffer
    sent_fccl: int = -1  # what the last FCP advertised
    sent_fctbs: int = 0
    last_fcp_ns: int = 0
    stalls: int = 0
    stalled_ns: int = 0
    max_used: int = 0
    since: int | None = None

    def __post_init__(self) -> None:
        self.fccl = self.sent_fccl = self.limit

    @property
    def own_fccl(self) -> int:
        """The limit this end advertises: blocks received + free blocks."""
        return self.abr + self.limit - self.buffered


@dataclass
class PortCredits:
    """Credit state of one link end (a switch port or an HCA port), per VL."""

    limit: int
    src_mac: bytes
    vls: dict[int, VlState] = field(default_factory=dict)
    fcp_tx: int = 0
    fcp_rx: int = 0
    fcp_bad: int = 0

    def vl(self, vl: int) -> VlState:
        """The state of ``vl`` (created on first use)."""
        st = self.vls.get(vl)
        if st is None:
            st = self.vls[vl] = VlState(self.limit)
        return st

    # -- sender -------------------------------------------------------------------------

    def fits(self, vl: int, need: int, now: int) -> bool:
        """True if ``need`` blocks may go on ``vl`` now; tracks stall intervals."""
        st = self.vl(vl)
        if st.fctbs + need <= st.fccl:
            if st.since is not None:
                st.stalled_ns += now - st.since
                st.since = None
            return True
        if st.since is None:
            st.since = now
            st.stalls += 1
        return False

    def spend(self, vl: int, need: int) -> None:
        """A packet of ``need`` blocks left on ``vl``."""
        st = self.vl(vl)
        st.fctbs += need
        st.max_used = max(st.max_used, st.limit - (st.fccl - st.fctbs))

    # -- receiver -----------------------------------------------------------------------

    def received(self, vl: int, n: int) -> None:
        """A data packet of ``n`` blocks arrived into the buffer."""
        st = self.vl(vl)
        st.abr += n
        st.buffered += n

    def released(self, vl: int, n: int) -> None:
        """``n`` blocks left the buffer (forwarded, consumed or dropped)."""
        st = self.vl(vl)
        st.buffered = max(0, st.buffered - n)

    def on_fcp(self, frame: bytes) -> None:
        """Apply a received FCP: the peer's credit limit and its blocks-sent count."""
        fcp = decode_fcp(frame)
        if fcp is None or fcp.op != FCP_OP_NORMAL:
            self.fcp_bad += 1
            return
        self.fcp_rx += 1
        st = self.vl(fcp.vl)
        st.fccl = st.fctbs + _signed(fcp.fccl - st.fctbs)
        st.abr += _signed(fcp.fctbs - st.abr)

    # -- FCP generation -----------------------------------------------------------------

    def _wants(self, st: VlState, now: int) -> bool:
        fccl = st.own_fccl
        if fccl - st.sent_fccl >= max(1, st.limit // 4):
            return True
        changed = fccl != st.sent_fccl or st.fctbs != st.sent_fctbs
        wait = REFRESH_NS if changed else KEEPALIVE_NS
        return now - st.last_fcp_ns >= wait

    def due(self, now: int) -> list[bytes]:
        """FCP frames to send now (possibly none)."""
        out = []
        for vl, st in self.vls.items():
            if not self._wants(st, now):
                continue
            fccl = st.own_fccl
            out.append(encode_fcp(self.src_mac, Fcp(FCP_OP_NORMAL, st.fctbs, vl, fccl)))
            st.sent_fccl, st.sent_fctbs, st.last_fcp_ns = fccl, st.fctbs, now
            self.fcp_tx += 1
        return out

    def next_due(self) -> int | None:
        """When :meth:`due` may next send something (None: no VL in use yet)."""
        best = None
        for st in self.vls.values():
            changed = st.own_fccl != st.sent_fccl or st.fctbs != st.sent_fctbs
            t = st.last_fcp_ns + (REFRESH_NS if changed else KEEPALIVE_NS)
            best = t if best is None else min(best, t)
        return best

    def stats(self, now: int) -> dict[str, int]:
        """Stalls, time stalled (running stalls up to ``now``), most credits used, FCPs."""
        stalled = sum(
            st.stalled_ns + (now - st.since if st.since is not None else 0)
            for st in self.vls.values()
        )
        return {
            "stalls": sum(st.stalls for st in self.vls.values()),
            "stalled_ns": stalled,
            "max_used": max((st.max_used for st in self.vls.values()), default=0),
            "limit": self.limit,
            "fcp_tx": self.fcp_tx,
            "fcp_rx": self.fcp_rx,
            "fcp_bad": self.fcp_bad,
        }


def wire_limit(buffer_bytes_per_vl: int) -> int:
    """Credits per VL for ``buffer_bytes_per_vl``; UserError beyond the 12-bit counters."""
    limit = CreditConfig(buffer_bytes_per_vl).limit
    if limit > MAX_LIMIT:
        raise UserError(
            f"IB buffer per VL {buffer_bytes_per_vl} B is more than FCP credits can count "
            f"({MAX_LIMIT} blocks of 64 B = {MAX_LIMIT * 64} B)"
        )
    return limit


def port_mac(ifname: str) -> bytes:
    """The interface's MAC address (zeros if it cannot be read)."""
    try:
        return bytes.fromhex(
            Path(f"/sys/class/net/{ifname}/address").read_text().strip().replace(":", "")
        )
    except (OSError, ValueError):
        return bytes(6)


class SwitchLinkCredits:
    """``FlowControl`` of a switch process: per-port credit state, FCPs in and out.

    Registered on the traffic manager (eligibility, spending, FCPs offered through
    ``TrafficManager.on_control_frame``) and as its ``on_buffer_release`` (the receive side).
    """

    def __init__(
        self,
        tm: object,
        buffer_bytes_per_vl: int,
        port_macs: dict[int, bytes],
        clock: Callable[[], int],
    ) -> None:
        limit = wire_limit(buffer_bytes_per_vl)
        self.tm, self.clock = tm, clock
        self.ports = {p: PortCredits(limit, mac) for p, mac in port_macs.items()}
        self._released = False
        #: ports whose link is down: not gated (what is queued for them goes, and is lost
        #: on the dead wire, so the ingress buffers it held free up and credits flow again)
        self.down: set[int] = set()

    def set_link(self, port: int, up: bool) -> None:
        """The link of ``port`` went down, or came back (link re-initialisation: both
        ends start their credit accounting afresh; stall counters are kept)."""
        if not up:
            self.down.add(port)
            return
        self.down.discard(port)
        pc = self.ports.get(port)
        if pc is not None:
            for st in pc.vls.values():
                st.fctbs = st.abr = st.sent_fctbs = 0
                st.fccl = st.sent_fccl = st.limit
                st.since = None

    # FlowControl protocol
    def eligible_at(self, port: int, priority: int, now: int) -> int:
        """Now if the head packet of (port, VL) fits the peer's credits (or the link is
        down: it is dropped on the wire), else BLOCKED."""
        pc = self.ports.get(port)
        head = self.tm.head_length(port, priority)  # type: ignore[attr-defined]
        if pc is None or head is None or port in self.down or pc.fits(priority, blocks(head), now):
            return now
        return BLOCKED

    def on_control_frame(self, port: int, frame: bytes, now: int) -> bool:
        """Consume an FCP received on ``port``."""
        pc = self.ports.get(port)
        if pc is None or not is_fcp(frame):
            return False
        pc.on_fcp(frame)
        return True

    def on_transmit(self, port: int, priority: int, length: int, now: int) -> None:
        """Spend the packet's credits."""
        pc = self.ports.get(port)
        if pc is not None and port not in self.down:
            pc.spend(priority, blocks(length))

    # receive side
    def on_release(self, in_port: int, vl: int, length: int, now: int) -> None:
        """The TM let a packet that arrived on ``in_port`` leave the buffer."""
        self._released = True
        pc = self.ports.get(in_port)
        if pc is not None:
            pc.released(vl, blocks(length))

    def receive(
        self, port: int, frame: bytes, receive: Callable[[int, bytes], list[int]]
    ) -> list[int]:
        """Account an arriving data frame, run ``receive`` (the pipeline); a frame the
        pipeline dropped leaves the buffer at once."""
        pc = self.ports.get(port)
        if pc is None or frame[12:14] != _SHIM:
            return receive(port, frame)
        vl, n = frame_vl(frame), blocks(len(frame))
        pc.received(vl, n)
        self._released = False
        out = receive(port, frame)
        if not out and not self._released:
            pc.released(vl, n)
        return out

    def due(self, now: int) -> Iterable[tuple[int, bytes]]:
        """(port, FCP frame) to send now."""
        for port, pc in self.ports.items():
            for frame in pc.due(now):
                yield port, frame

    def next_due(self) -> int | None:
        """The earliest time an FCP may be due."""
        times = [t for pc in self.ports.values() if (t := pc.next_due()) is not None]
        return min(times, default=None)

    def stats(self, now: int) -> dict[str, dict[str, int]]:
        """Per port: stalls, stalled ns, most credits used, FCPs sent/received."""
        return {str(p): pc.stats(now) for p, pc in sorted(self.ports.items())}


class HostLinkCredits:
    """An HCA's end of its link (RNIC process): sends gated by credits, FCPs both ways.

    The HCA consumes what it receives at once, so its buffer never holds anything.
    """

    def __init__(self, buffer_bytes_per_vl: int, mac: bytes) -> None:
        self.port = PortCredits(wire_limit(buffer_bytes_per_vl), mac)
        self.held = 0  # frames waiting for credits (0 or 1: the FIFO's head)

    def on_frame(self, frame: bytes) -> bool:
        """Account a received frame; True if it was an FCP (consumed here)."""
        if is_fcp(frame):
            self.port.on_fcp(frame)
            return True
        if frame[12:14] == _SHIM:
            vl, n = frame_vl(frame), blocks(len(frame))
            self.port.received(vl, n)
            self.port.released(vl, n)
        return False

    def try_send(self, frame: bytes, now: int) -> bool:
        """True (credits spent) if ``frame`` may go on the wire now."""
        vl, n = frame_vl(frame), blocks(len(frame))
        if not self.port.fits(vl, n, now):
            return False
        self.port.spend(vl, n)
        return True
