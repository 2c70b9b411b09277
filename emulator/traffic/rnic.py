"""The emulated RDMA NIC: a pure, clock-driven object (no sockets, no threads).

    frames in ──on_frame──► PFC? ─► pause table          poll(now) ─► frame out
                            RoCE? ─► QP[dqpn] ─► responder: ACK/NAK/CNP pending
                                             └► requester: retire / go back N
    scheduler: strict priority by traffic class (skipping PFC-paused classes), round robin
    over the QPs of a class, link serialisation (``link_bps``) and per-QP pacing.

Both runtimes drive it the same way::

    nic.on_frame(frame, now_ns)
    frame = nic.poll(now_ns)          # at most one frame per serialisation time
    t = nic.next_wakeup()             # call poll again at t (None: nothing to do)
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from emulator import speedups
from emulator.errors import UserError
from emulator.traffic import opcodes as op
from emulator.traffic.counters import RnicCounters
from emulator.traffic.dcqcn import DcqcnConfig, DcqcnRate
from emulator.traffic.framing import Framing, mac_bytes
from emulator.traffic.framing_fast import default_framing
from emulator.traffic.qos import TrafficClassPlan
from emulator.traffic.qp import QpOwner, QpParams, QueuePair, wire_ns
from emulator.traffic.roce import Transport, decode_transport, udp_sport
from emulator.traffic.seeding import SPORT_POLICIES
from emulator.vocab import ECN_CE, ECN_ECT0, ECN_NOT_ECT, NUM_TCS, EtherType
from emulator.vocab.pfc import parse_pfc, quanta_to_ns

_MAC_CONTROL = EtherType.MAC_CONTROL.to_bytes(2, "big")
#: default retransmission timeout in MTU frame times (see RnicConfig.rto)
RTO_FRAMES = 4096


@dataclass(frozen=True)
class RnicConfig:
    """RNIC settings: link, transport and NCCL-transport knobs."""

    link_bps: float = 10e9
    mtu: int = 1024  # RoCE path MTU: payload bytes per packet
    ack_every: int = 8
    rto_ns: int | None = None  # retransmission timeout; None: see ``rto``
    max_inflight: int = 256  # unacknowledged packets per QP
    qp_rate_bps: float | None = None  # per-QP pacing (None: line rate)
    verify_icrc: bool = True
    dcqcn: DcqcnConfig | None = None
    qos: TrafficClassPlan = field(default_factory=TrafficClassPlan)
    admission: bool = True  # NCCL-style CTS before each chunk
    chunk_bytes: int = 128 * 1024
    cts_window: int = 4  # chunks a receiver clears ahead (NCCL "steps" in flight)
    #: RoCEv2 UDP source port policy: qpn_hash | per_connection | fixed (emulator.traffic.seeding)
    udp_sport: str = "qpn_hash"
    #: extra idle time after each frame, uniform in 0..tx_jitter_ns from the RNIC's seeded
    #: stream (timing jitter: flowlet gaps, arrival order); 0 = none
    tx_jitter_ns: int = 0
    #: retransmission rounds without progress before a QP errors (IB retry_cnt: 0..7)
    retry_cnt: int = 7
    #: packets accepted ahead of the expected PSN (out-of-order placement, as IB HCAs do under
    #: adaptive routing); 0 = strict go-back-N
    ooo_window: int = 0

    def __post_init__(self) -> None:
        if self.mtu not in (256, 512, 1024, 2048, 4096):
            raise UserError(f"RNIC mtu {self.mtu} is not an IB path MTU (256..4096)")
        if self.link_bps <= 0 or self.ack_every < 1 or self.max_inflight < 1:
            raise UserError("RNIC link_bps, ack_every and max_inflight must be positive")
        if (
            self.chunk_bytes < 1
            or self.cts_window < 1
            or (self.rto_ns is not None and self.rto_ns < 1)
        ):
            raise UserError("RNIC chunk_bytes, cts_window and rto_ns must be positive")
        if self.udp_sport not in SPORT_POLICIES:
            raise UserError(
                f"RNIC udp_sport {self.udp_sport!r} unknown (known: {', '.join(SPORT_POLICIES)})"
            )
        if self.tx_jitter_ns < 0:
            raise UserError("RNIC tx_jitter_ns must be >= 0")
        if not 0 <= self.ooo_window <= 4096:
            raise UserError(f"RNIC ooo_window {self.ooo_window} is not 0..4096")
        if not 0 <= self.retry_cnt <= 7:
            raise UserError(f"RNIC retry_cnt {self.retry_cnt} is not 0..7 (a 3-bit field)")

    @property
    def rto(self) -> int:
        """Effective base retransmission timeout (ns): ``rto_ns``, or by default the larger of
        1 ms and 4096 MTU-sized frame times at ``link_bps`` (~3.7 s at 10 Mb/s, ~37 ms at
        1 Gb/s, ~3.7 ms at 10 Gb/s). A packet may legitimately wait behind PFC-paused queues
        full of other QPs' packets (PFC is unfair to far senders), so the timeout must exceed
        what a lossless fabric can hold; real RNICs under NCCL use ~1 s (4.096 us * 2^18),
        i.e. millions of frame times. Consecutive timeouts of a QP double it (up to 64x)."""
        if self.rto_ns is not None:
            return self.rto_ns
        frame_ns = (self.mtu + 100) * 8e9 / self.link_bps
        return max(1_000_000, int(RTO_FRAMES * frame_ns))


class Rnic:
    """An RoCE RNIC with reliable-connected QPs, PFC honouring and optional DCQCN."""

    qp_class: type[QueuePair] = QueuePair

    def __init__(
        self,
        mac: str,
        ip: str,
        gateway_mac: str,
        framing: Framing | None = None,
        seed: int = 0,
        config: RnicConfig | None = None,
        name: str = "",
    ) -> None:
        mac_bytes(mac)
        self.mac, self.ip, self.gateway_mac = mac, ip, gateway_mac
        self._mac_raw = mac_bytes(mac)
        self.name = name or ip
        self.framing: Framing = framing or default_framing()
        self.config = config or RnicConfig()
        self.rng = random.Random(seed)
        self.counters = RnicCounters()
        self.qps: dict[int, QueuePair] = {}
        self._active: list[deque[QueuePair]] = [deque() for _ in range(NUM_TCS)]
        self._paused_until = [0] * NUM_TCS
        self._tx_free_at = 0
        self._now = 0
        self._used_tcs: set[int] = set()
        #: traffic classes poll/next_wakeup visit, highest first; with FASTHOP only the used
        #: ones (the others' QP lists stay empty)
        self._tc_order: Sequence[int] = range(NUM_TCS - 1, -1, -1)
        self._used_only = speedups.enabled("FASTHOP")
        self._armed: set[QueuePair] = set()  # QPs that may have a retransmission deadline
        self._rto_min: int | None = None
        #: called with each :class:`emulator.traffic.connection.Completion`
        self.completion_handler: Callable[[Any], None] | None = None
        self.completions: list[Any] = []
        self._params = QpParams(
            self.config.mtu,
            self.config.ack_every,
            self.config.rto,
            self.config.max_inflight,
            self.config.qp_rate_bps,
            self.config.verify_icrc,
            self.config.retry_cnt,
            self.config.ooo_window,
        )
        self._prepare()

    def _prepare(self) -> None:
        """A subclass's own set-up, run last in ``__init__`` (no ``*args`` forwarding
        constructor: mypyc's classes refuse them, emulator/native)."""

    # ---------------------------------------------------------------- setup
    def create_qp(
        self,
        qpn: int,
        remote_qpn: int,
        peer_ip: str,
        dscp: int,
        tc: int,
        ipsn: int,
        remote_ipsn: int,
        owner: QpOwner | None = None,
        sport: int | None = None,
    ) -> QueuePair:
        """Create an RC QP already connected to ``remote_qpn`` at ``peer_ip`` (RTS state).

        ``sport``: its RoCEv2 UDP source port (default: the flow-label hash of the QPNs).
        """
        if qpn in self.qps:
            raise UserError(f"{self.name}: QPN {qpn:#x} already in use")
        ecn = ECN_ECT0 if self.config.dcqcn else ECN_NOT_ECT
        if sport is None:
            sport = udp_sport(qpn, remote_qpn)
        fr = self.framing
        path = fr.make_path(self.mac, self.gateway_mac, self.ip, peer_ip, sport, dscp, ecn)
        dcq = cnp_path = None
        if self.config.dcqcn is not None:
            dcq = DcqcnRate(self.config.dcqcn, self.config.link_bps, self._now)
            cnp_path = fr.make_path(
                self.mac, self.gateway_mac, self.ip, peer_ip, sport, self.config.qos.dscp_cnp, 0
            )
        qp = self.qp_class(
            qpn,
            remote_qpn,
            ipsn,
            remote_ipsn,
            tc,
            path,
            fr,
            self._params,
            self.counters,
            owner,
            cnp_path,
            dcq,
        )
        self.qps[qpn] = qp
        self._used_tcs.add(tc)
        if self._used_only:
            self._tc_order = sorted(self._used_tcs, reverse=True)
        return qp

    def kick(self, qp: QueuePair) -> None:
        """Make sure ``qp`` is scheduled (after posting work or gaining control frames)."""
        if not qp.active and qp.has_work():
            qp.active = True
            self._active[qp.tc].append(qp)

    def complete(self, completion: object) -> None:
        """Hand a message completion to ``completion_handler`` (or keep it in ``completions``)."""
        if self.completion_handler is not None:
            self.completion_handler(completion)
        else:
            self.completions.append(completion)

    # ---------------------------------------------------------------- datapath
    def on_frame(self, frame: bytes, now_ns: int) -> None:
        """Take one received frame."""
        self._now = max(self._now, now_ns)
        c = self.counters
        c.rx_pkts += 1
        c.rx_bytes += len(frame)
        if frame[12:14] == _MAC_CONTROL:
            self._on_pause(frame, now_ns)
            return
        if not self.framing.addressed_to(frame, self._mac_raw):
            c.not_for_us += 1
            return
        d = self.framing.decode(frame, self.config.verify_icrc)
        if d is None:
            c.not_for_us += 1
            return
        if d.icrc_ok is False:
            c.icrc_errors += 1
            return
        self._on_transport(d.transport, (d.tos & 3) == ECN_CE, now_ns)

    def _on_transport(self, transport: bytes, ecn_ce: bool, now_ns: int) -> None:
        """Decode a received frame's transport bytes (ICRC checked) and dispatch them."""
        t = decode_transport(transport)
        if t is None:
            self.counters.not_for_us += 1
            return
        qp = self.qps.get(t.dqpn)
        if qp is None:
            self.counters.unknown_qp += 1
            return
        self._dispatch(qp, t, ecn_ce, now_ns)

    def _dispatch(self, qp: QueuePair, t: Transport, ecn_ce: bool, now_ns: int) -> None:
        """Hand a decoded packet for ``qp`` to it; track its timer; schedule it."""
        code = t.opcode
        if code == op.RC_ACK:
            qp.on_ack(t, now_ns)
        elif code == op.CNP:
            self.counters.cnps_received += 1
            if qp.dcqcn is not None:
                qp.dcqcn.on_cnp(now_ns)
        else:
            qp.on_request(t, ecn_ce, now_ns)
        dl = qp.rto_deadline
        if dl is not None:
            self._arm(qp, dl)
        self.kick(qp)

    def _on_pause(self, frame: bytes, now_ns: int) -> None:
        quanta = parse_pfc(frame)
        if quanta is None:
            self.counters.not_for_us += 1
            return
        self.counters.pause_frames += 1
        for prio, q in quanta.items():
            if q == 0:
                self._paused_until[prio] = now_ns
                continue
            self._paused_until[prio] = now_ns + quanta_to_ns(q, self.config.link_bps)
            if prio in self._used_tcs:
                self.counters.pauses_honoured += 1

    def paused_until(self, tc: int) -> int:
        """Time until which traffic class ``tc`` is paused by PFC (past: not paused)."""
        return self._paused_until[tc]

    def _arm(self, qp: QueuePair, deadline: int) -> None:
        """Track ``qp``'s retransmission deadline (keeps ``_rto_min`` a lower bound)."""
        self._armed.add(qp)
        if self._rto_min is None or deadline < self._rto_min:
            self._rto_min = deadline

    def _fire_timers(self, now_ns: int) -> None:
        """Fire due retransmission timeouts.

        ``_rto_min`` is a lower bound of the armed deadlines (every newly set deadline passes
        through ``_arm``; deadlines that move later leave it a valid bound), recomputed only
        when it is reached.
        """
        if self._rto_min is None or self._rto_min > now_ns:
            return
        best: int | None = None
        for qp in list(self._armed):
            dl = qp.rto_deadline
            if dl is None:
                self._armed.discard(qp)
                continue
            if dl <= now_ns:
                qp.on_timeout(now_ns)
                self.kick(qp)
                dl = qp.rto_deadline
                if dl is None:
                    self._armed.discard(qp)
                    continue
            if best is None or dl < best:
                best = dl
        self._rto_min = best

    def poll(self, now_ns: int) -> bytes | None:
        """The next frame to put on the wire at ``now_ns``, if any."""
        self._now = max(self._now, now_ns)
        self._fire_timers(now_ns)
        if now_ns < self._tx_free_at:
            return None
        for tc in self._tc_order:
            dq = self._active[tc]
            if not dq or self._paused_until[tc] > now_ns:
                continue
            for _ in range(len(dq)):
                qp = dq.popleft()
                if not qp.has_work():
                    qp.active = False
                    continue
                dq.append(qp)
                frame = qp.next_frame(now_ns)
                if frame is not None:
                    dl = qp.rto_deadline
                    if dl is not None:
                        self._arm(qp, dl)
                    c = self.counters
                    c.tx_pkts += 1
                    c.tx_bytes += len(frame)
                    self._tx_free_at = now_ns + wire_ns(len(frame), self.config.link_bps)
                    if self.config.tx_jitter_ns:
                        self._tx_free_at += self.rng.randint(0, self.config.tx_jitter_ns)
                    return frame
        return None

    def next_wakeup(self) -> int | None:
        """When ``poll`` may next return a frame or a timer fires; None when idle.

        May be early (a timeout that was pushed back); ``poll`` then returns None and
        ``next_wakeup`` moves on. (Each QP's ``ready_at`` inlined: this runs per packet.)
        """
        best: int | None = None
        free = self._tx_free_at
        active, paused_until = self._active, self._paused_until
        for tc in self._tc_order:
            dq = active[tc]
            if not dq:
                continue
            paused = paused_until[tc]
            for qp in dq:
                if qp.ack_pending or qp.nak_pending or qp.cnp_pending:
                    r = 0
                elif qp.error is None and (
                    qp.resend < len(qp.inflight)
                    or (qp.pending and len(qp.inflight) < qp.max_inflight)
                ):
                    r = qp.next_tx_ns
                else:
                    continue
                if r < paused:
                    r = paused
                if best is None or r < best:
                    best = r
                    if best <= free:
                        break
            if best is not None and best <= free:
                break
        if best is not None and best < free:
            best = free
        rto = self._rto_min
        if rto is not None and (best is None or rto < best):
            best = rto
        return best

    @property
    def now_ns(self) -> int:
        """Latest time this RNIC has seen."""
        return self._now
