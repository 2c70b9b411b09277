"""PFC thresholds derived from the fabric: link rate, cable delay, MTU and response time.

IEEE 802.1Qbb headroom reasoning (Cisco, "Priority Flow Control: Build Reliable Layer 2
Infrastructure", white paper, 2015): after a queue crosses XOFF, a neighbour may still
deliver, per ingress link,

    MTU[R]           the frame this switch is sending when it decides to pause (the PFC
                     frame cannot pre-empt it)
  + PFC frame        64 B + preamble/IFG
  + 2 x cable        the pause travels to the neighbour while its data travels here
  + response         the neighbour's reaction time (IEEE 802.3 bounds it; 0 for the
                     emulated RNICs and switches, which stop at the next frame boundary)
  + MTU[S]           the frame the neighbour is sending when the pause arrives
  + 1 packet         the neighbour's packet that found the queue above XOFF (the trigger)

The thresholds here count packets of the egress queue (roce_fabric.p4 pauses every ingress
neighbour that feeds a queue above XOFF), so every other port of a switch can overshoot
by its headroom at once: ``xoff = depth - max over ports e of sum over ports i != e of
headroom_pkts(i)``; ``xon = xoff // 2``. One value for the whole fabric (the worst switch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from emulator.control.errors import ControlError

#: bytes on the wire around a RoCEv2 payload: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
#: RETH 16 + ICRC 4 + FCS 4 + preamble/SFD 8 + inter-frame gap 12
FRAME_OVERHEAD = 98
PFC_FRAME = 64 + 20  # a PFC frame with preamble and inter-frame gap
#: a pause lasts at least this long (ns). roce_fabric.p4 refreshes an XOFF only when the
#: paused neighbour's next packet arrives, i.e. after the pause lapsed; each lapse lets
#: every paused neighbour deliver its headroom again, so pauses must be long compared with
#: how fast congested queues drain (explicit XONs resume neighbours early). The built-in
#: target's MAC renews pauses on a timer (emulator.target.pfc_refresh); real BMv2 does not.
#: 80 us at 400 Gb/s = 62,500 quanta; at 10 Mb/s MIN_QUANTA (51 ms) is already longer.
MIN_PAUSE_NS = 80_000
MIN_QUANTA = 1000  # 51 ms at 10 Mb/s (the scaled-down fabrics)
#: how late an emulated device may react on Mininet (process scheduling on shared cores):
#: the headroom :func:`lag_depth` adds to the queues there (about 1.6x the worst lag seen)
PROCESS_LAG_NS = 100_000_000


@dataclass(frozen=True)
class PfcThresholds:
    """Derived thresholds and how they were obtained (for logs and docs)."""

    xoff: int
    xon: int
    depth: int
    overshoot_pkts: int  # worst sum of the other ports' headroom at one switch
    switch: str  # where that worst case is


def headroom_bytes(rate_bps: float, delay_ns: float, mtu: int, response_ns: float = 0) -> float:
    """Bytes a neighbour may still deliver after this end decides to pause it."""
    frame = mtu + FRAME_OVERHEAD
    wire = rate_bps * (2 * delay_ns + response_ns) / 8e9
    return 2 * frame + PFC_FRAME + wire


def headroom_pkts(rate_bps: float, delay_ns: float, mtu: int, response_ns: float = 0) -> int:
    """The same in whole MTU-sized frames (rounded up), plus the packet whose arrival above
    XOFF triggers the pause (a neighbour is paused when one of its packets finds the queue
    above XOFF, so that packet too lands above it)."""
    frames = headroom_bytes(rate_bps, delay_ns, mtu, response_ns) / (mtu + FRAME_OVERHEAD)
    return math.ceil(frames) + 1


def pause_quanta(rate_bps: float) -> int:
    """Pause quanta (512 bit times) lasting at least ``MIN_PAUSE_NS`` at ``rate_bps``
    (the fabric's fastest port), at least ``MIN_QUANTA``, at most 0xFFFF."""
    need = math.ceil(MIN_PAUSE_NS * rate_bps / 512e9)
    return min(0xFFFF, max(MIN_QUANTA, need))


def overshoot(topo: Any, mtu: int, response_ns: float = 0) -> tuple[int, str]:
    """(packets, switch): the worst sum, over one switch's ports but one, of what those
    neighbours may still deliver after a pause, and the switch where it is worst."""
    worst, where = 0, ""
    for sw in topo.switches:
        room = [headroom_pkts(p.rate_bps, p.delay_ns, mtu, response_ns) for p in sw.ports]
        if len(room) < 2:
            continue
        total = sum(room)
        over = max(total - r for r in room)
        if over > worst:
            worst, where = over, sw.name
    return worst, where


def lag_depth(topo: Any, mtu: int, xoff: int, lag_ns: float) -> int:
    """A queue depth that keeps XOFF at ``xoff`` and holds what every other port may still
    deliver when the devices react ``lag_ns`` late (``response_ns`` = ``lag_ns``).

    Why: on Mininet the switches and RNICs are processes sharing the machine's cores. A
    switch that is not scheduled for a while finds a backlog in its sockets when it runs
    again; those frames were sent before it could see its queue cross XOFF, so they are
    the emulation's "cable" and need headroom like the real one (measured: up to ~75
    frames, ~60 ms at 10 Mb/s, above XOFF on a spine of two_rack_4spine with 14 processes
    on 2 cores; the derived depth of 64 then dropped in ~1 of 3 lossless runs)."""
    worst, _ = overshoot(topo, mtu, lag_ns)
    return xoff + worst


def derive(topo: Any, mtu: int, depth: int, response_ns: float = 0) -> PfcThresholds:
    """XOFF/XON (packets) for every switch of resolved topology ``topo``.

    ControlError when ``depth`` cannot hold the headroom: it names the depth needed.
    """
    worst, where = overshoot(topo, mtu, response_ns)
    xoff = depth - worst
    if xoff < 2:
        raise ControlError(
            f"PFC: queues of {depth} packets cannot hold the headroom of {worst} packets "
            f"that {where}'s other ports may deliver after a pause (MTU {mtu}); give a "
            f"queue depth of at least {worst + 2} packets or explicit thresholds"
        )
    return PfcThresholds(xoff, xoff // 2, depth, worst, where)
