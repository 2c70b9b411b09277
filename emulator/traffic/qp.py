"""A Reliable Connected queue pair: requester (segmentation, go-back-N) and responder (ACK/NAK).

Requester: work requests are cut into MTU packets (RDMA WRITE first/middle/last/only, RETH on
first/only; SEND likewise); unacknowledged packets stay in ``inflight``; ``resend`` is the
index of the next packet to transmit: below ``len(inflight)`` after a NAK (PSN sequence
error) or a retransmission timeout, i.e. go-back-N from the first unacknowledged PSN.
Responder: accepts only the expected PSN, ACKs every ``ack_every`` packets or on AckReq
(message end), sends one NAK per sequence error, re-ACKs duplicates.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from emulator.traffic import opcodes as op
from emulator.traffic.counters import RnicCounters
from emulator.traffic.dcqcn import DcqcnRate
from emulator.traffic.roce import (
    PSN_MASK,
    Transport,
    encode_transport,
    pack_bth,
)
from emulator.vocab import WIRE_OVERHEAD_BYTES

if TYPE_CHECKING:
    from emulator.traffic.framing import Framing

#: preamble + start delimiter (8) + FCS (4) + inter-frame gap (12): wire bytes not in a frame
#: consecutive timeouts double the RTO up to 2**MAX_RTO_BACKOFF times
MAX_RTO_BACKOFF = 6
_HALF = 1 << 23
_ZEROS = bytes(16384)


def psn_diff(a: int, b: int) -> int:
    """Signed distance a - b in 24-bit PSN space."""
    return ((a - b + _HALF) & PSN_MASK) - _HALF


def wire_ns(frame_len: int, bps: float) -> int:
    """Nanoseconds ``frame_len`` bytes (+ preamble/FCS/IFG) occupy a link of ``bps``."""
    return int(((frame_len + WIRE_OVERHEAD_BYTES) * 8e9) // bps) + 1


class QpOwner(Protocol):
    """Who hears about a QP's completed messages (a Connection)."""

    def on_wr_complete(self, qp: QueuePair, wr: WorkRequest, now_ns: int) -> None:
        """A work request was fully acknowledged."""

    def on_message(
        self, qp: QueuePair, opcode: int, nbytes: int, imm: int | None, payload: bytes, now_ns: int
    ) -> None:
        """A whole message arrived in sequence (``payload`` only for SENDs)."""


@dataclass(eq=False)
class WorkRequest:
    """One posted RDMA WRITE (with immediate) or SEND."""

    is_send: bool
    length: int
    va: int = 0
    rkey: int = 0
    imm: int | None = None
    payload: bytes = b""
    wr_id: int = 0
    posted_ns: int = 0
    npkts: int = field(init=False, default=1)


@dataclass(frozen=True)
class QpParams:
    """Per-QP transport settings (copied from the RNIC configuration)."""

    mtu: int
    ack_every: int
    rto_ns: int
    max_inflight: int
    rate_bps: float | None
    verify_icrc: bool
    #: retransmissions without progress before the QP errors (IB retry_cnt, 3 bits)
    retry_cnt: int = 7
    #: packets accepted ahead of the expected PSN and delivered in PSN order once the gap
    #: fills (out-of-order placement); 0 = strict go-back-N
    ooo_window: int = 0


class QueuePair:
    """RC queue pair state; frames are built through the RNIC's framing."""

    def __init__(
        self,
        qpn: int,
        remote_qpn: int,
        ipsn: int,
        remote_ipsn: int,
        tc: int,
        path: object,
        framing: Framing,
        params: QpParams,
        counters: RnicCounters,
        owner: QpOwner | None = None,
        cnp_path: object | None = None,
        dcqcn: DcqcnRate | None = None,
    ) -> None:
        self.qpn, self.remote_qpn, self.tc = qpn, remote_qpn, tc
        self.path, self.cnp_path, self.framing = path, cnp_path, framing
        self.p, self.c, self.owner, self.dcqcn = params, counters, owner, dcqcn
        self.max_inflight = params.max_inflight  # read per packet by the FASTNIC scheduler
        # requester
        self.pending: deque[WorkRequest] = deque()
        self.seg_off = 0
        self.seg_idx = 0
        self.inflight: deque[tuple[int, WorkRequest, int, int, int]] = deque()
        self.resend = 0
        self.next_psn = ipsn & PSN_MASK
        self.next_tx_ns = 0
        self.rto_deadline: int | None = None
        self.rto_backoff = 0  # consecutive timeouts without progress (doubles the RTO)
        self.retries = 0  # retransmission rounds (timeouts, NAKs) without progress
        #: set when the QP went to the error state (retries exhausted), with the time
        self.error: str | None = None
        self.error_ns: int | None = None
        # responder
        self.epsn = remote_ipsn & PSN_MASK
        self.msn = 0
        self.nak_sent = False
        self.ack_pending = False
        self.nak_pending = False
        self.cnp_pending = False
        self.last_cnp_ns = -(1 << 62)
        self.since_ack = 0
        self.msg_bytes = 0
        self.msg_payload: list[bytes] = []
        #: packets that arrived ahead of ``epsn`` (ooo_window > 0): PSN -> (packet, ECN CE)
        self.ahead: dict[int, tuple[Transport, bool]] = {}
        # per-flow accounting
        self.tx_payload = 0
        self.rx_payload = 0
        self.first_rx_ns: int | None = None
        self.last_rx_ns: int | None = None
        self.active = False
        self._prepare()

    def _prepare(self) -> None:
        """A subclass's own set-up, run last in ``__init__`` (no ``*args`` forwarding
        constructor: mypyc's classes refuse them, emulator/native)."""

    # ---------------------------------------------------------------- requester side
    def post(self, wr: WorkRequest) -> None:
        """Queue a work request for transmission."""
        wr.npkts = max(1, -(-wr.length // self.p.mtu))
        self.pending.append(wr)

    def has_work(self) -> bool:
        """True when this QP has a frame to send (now or after pacing)."""
        return self.ack_pending or self.nak_pending or self.cnp_pending or self._data_ready()

    def _data_ready(self) -> bool:
        if self.error is not None:
            return False
        if self.resend < len(self.inflight):
            return True
        return bool(self.pending) and len(self.inflight) < self.p.max_inflight

    def ready_at(self) -> int | None:
        """Earliest time this QP may transmit, or None when it is blocked/idle."""
        if self.ack_pending or self.nak_pending or self.cnp_pending:
            return 0
        if self._data_ready():
            return self.next_tx_ns
        return None

    def next_frame(self, now_ns: int) -> bytes | None:
        """The next frame of this QP at ``now_ns`` (control first, then paced data)."""
        if self.nak_pending or self.ack_pending:
            nak = self.nak_pending
            self.nak_pending = self.ack_pending = False
            self.since_ack = 0
            if nak:
                self.c.naks_sent += 1
                t = encode_transport(
                    op.RC_ACK,
                    self.remote_qpn,
                    self.epsn,
                    aeth=(op.AETH_NAK_SEQ_ERR, self.msn),
                )
            else:
                self.c.acks_sent += 1
                t = encode_transport(
                    op.RC_ACK,
                    self.remote_qpn,
                    (self.epsn - 1) & PSN_MASK,
                    aeth=(op.AETH_ACK, self.msn),
                )
            return self.framing.encode(self.path, t)
        if self.cnp_pending:
            self.cnp_pending = False
            self.c.cnps_sent += 1
            t = pack_bth(op.CNP, self.remote_qpn, 0, becn=True) + _ZEROS[:16]
            return self.framing.encode(self.cnp_path or self.path, t)
        if now_ns < self.next_tx_ns or not self._data_ready():
            return None
        if self.resend < len(self.inflight):
            entry = self.inflight[self.resend]
            self.resend += 1
            self.c.retransmitted_pkts += 1
        else:
            entry = self._segment()
            self.inflight.append(entry)
            self.resend = len(self.inflight)
        if self.rto_deadline is None:
            self.rto_deadline = now_ns + self.p.rto_ns
        frame = self.framing.encode(self.path, self._build(entry))
        self.c.tx_data_pkts += 1
        self.c.tx_payload_bytes += entry[3]
        rate = self.p.rate_bps
        if self.dcqcn is not None:
            r = self.dcqcn.rate(now_ns)
            rate = r if rate is None else min(rate, r)
        if rate:
            self.next_tx_ns = now_ns + wire_ns(len(frame), rate)
        return frame

    def _segment(self) -> tuple[int, WorkRequest, int, int, int]:
        wr = self.pending[0]
        n = wr.npkts
        i = self.seg_idx
        off = self.seg_off
        length = min(self.p.mtu, wr.length - off)
        if wr.is_send:
            codes = (op.RC_SEND_ONLY, op.RC_SEND_FIRST, op.RC_SEND_MIDDLE, op.RC_SEND_LAST)
        elif wr.imm is not None:
            codes = (
                op.RC_RDMA_WRITE_ONLY_IMM,
                op.RC_RDMA_WRITE_FIRST,
                op.RC_RDMA_WRITE_MIDDLE,
                op.RC_RDMA_WRITE_LAST_IMM,
            )
        else:
            codes = (
                op.RC_RDMA_WRITE_ONLY,
                op.RC_RDMA_WRITE_FIRST,
                op.RC_RDMA_WRITE_MIDDLE,
                op.RC_RDMA_WRITE_LAST,
            )
        if n == 1:
            code = codes[0]
        elif i == 0:
            code = codes[1]
        elif i == n - 1:
            code = codes[3]
        else:
            code = codes[2]
        psn = self.next_psn
        self.next_psn = (psn + 1) & PSN_MASK
        if i == n - 1:
            self.pending.popleft()
            self.seg_idx = self.seg_off = 0
        else:
            self.seg_idx = i + 1
            self.seg_off = off + length
        return (psn, wr, off, length, code)

    def _build(self, entry: tuple[int, WorkRequest, int, int, int]) -> bytes:
        psn, wr, off, length, code = entry
        if wr.is_send:
            payload = wr.payload[off : off + length]
        else:
            payload = _ZEROS[:length] if length <= len(_ZEROS) else bytes(length)
        reth = (wr.va, wr.rkey, wr.length) if code in op.HAS_RETH else None
        imm = wr.imm if code in op.HAS_IMM else None
        ends = code in op.ENDS_MESSAGE
        return encode_transport(
            code, self.remote_qpn, psn, payload, ackreq=ends, reth=reth, imm=imm
        )

    def on_ack(self, t: Transport, now_ns: int) -> None:
        """Cumulative ACK, or NAK (PSN sequence error): retire packets, maybe go back N."""
        self.on_aeth(t.syndrome, t.psn, now_ns)

    def on_aeth(self, syndrome: int, psn: int, now_ns: int) -> None:
        """:meth:`on_ack` from the AETH syndrome and the BTH PSN alone."""
        nak = syndrome >> 5 == 3
        if nak:
            self.c.naks_received += 1
            through = (psn - 1) & PSN_MASK
        else:
            self.c.acks_received += 1
            through = psn
        infl = self.inflight
        if psn_diff(through, (self.next_psn - 1) & PSN_MASK) > 0:
            self.c.bad_acks += 1  # acknowledges PSNs never sent: ignore
            return
        if nak and (not infl or psn_diff(psn, infl[0][0]) < 0):
            self.c.bad_acks += 1  # stale NAK for packets already acknowledged
            return
        popped = 0
        while infl and psn_diff(infl[0][0], through) <= 0:
            _psn, wr, off, length, _code = infl.popleft()
            popped += 1
            if off + length >= wr.length:
                self.c.messages_sent += 1
                if self.owner is not None:
                    self.owner.on_wr_complete(self, wr, now_ns)
        if nak:
            self.resend = 0
        else:
            self.resend = max(0, self.resend - popped)
        if popped:
            self.rto_backoff = self.retries = 0
        elif nak:
            self._retry(now_ns, "NAK sequence error")
        if popped or nak:
            self.rto_deadline = now_ns + self.p.rto_ns if infl else None

    def on_timeout(self, now_ns: int) -> None:
        """Retransmission timeout: go back to the oldest unacknowledged packet."""
        self.c.timeouts += 1
        self.resend = 0
        self.rto_backoff = min(MAX_RTO_BACKOFF, self.rto_backoff + 1)
        rto = self.p.rto_ns << self.rto_backoff
        self.rto_deadline = now_ns + rto if self.inflight else None
        self._retry(now_ns, "transport retry counter exceeded")

    def _retry(self, now_ns: int, why: str) -> None:
        """One more retransmission round without progress; past ``retry_cnt`` the QP errors
        (IBV_WC_RETRY_EXC_ERR): it stops sending and its owner never hears a completion."""
        if not self.inflight or self.error is not None:
            return
        self.retries += 1
        if self.retries > self.p.retry_cnt:
            self.error = f"{why} ({self.p.retry_cnt} retries)"
            self.error_ns = now_ns
            self.rto_deadline = None

    # ---------------------------------------------------------------- responder side
    def on_request(self, t: Transport, ecn_ce: bool, now_ns: int) -> None:
        """An incoming SEND / RDMA WRITE packet."""
        d = psn_diff(t.psn, self.epsn)
        if d != 0:
            if d < 0 or t.psn in self.ahead:
                self.c.duplicates_received += 1
                self.ack_pending = True
            elif d < self.p.ooo_window:
                self.ahead[t.psn] = (t, ecn_ce)  # placed now, completed when the gap fills
                self.c.out_of_order_placed += 1
            else:
                self.c.out_of_sequence_dropped += 1
                if not self.nak_sent:
                    self.nak_sent = True
                    self.nak_pending = True
            return
        self._accept(t, ecn_ce, now_ns)
        while self.ahead and self.epsn in self.ahead:
            held, ce = self.ahead.pop(self.epsn)
            self._accept(held, ce, now_ns)

    def _accept(self, t: Transport, ecn_ce: bool, now_ns: int) -> None:
        """The packet with the expected PSN: count it, complete its message, maybe ACK."""
        p = t.payload
        self.take(t.opcode, len(p), p, t.imm, t.ackreq, ecn_ce, now_ns)

    def take(
        self,
        code: int,
        n: int,
        payload: bytes,
        imm: int | None,
        ackreq: bool,
        ecn_ce: bool,
        now_ns: int,
    ) -> None:
        """:meth:`_accept` from the packet's fields (``payload``, ``n`` bytes, is only
        read for SENDs)."""
        self.epsn = (self.epsn + 1) & PSN_MASK
        self.nak_sent = False
        self.rx_payload += n
        self.c.rx_payload_bytes += n
        if self.first_rx_ns is None:
            self.first_rx_ns = now_ns
        self.last_rx_ns = now_ns
        if (
            ecn_ce
            and self.dcqcn is not None
            and now_ns - self.last_cnp_ns >= (self.dcqcn.cfg.cnp_interval_ns)
        ):
            self.last_cnp_ns = now_ns
            self.cnp_pending = True
        if code in op.STARTS_MESSAGE:
            self.msg_bytes = 0
            self.msg_payload = []
        self.msg_bytes += n
        if code in op.SENDS:
            self.msg_payload.append(payload)
        self.since_ack += 1
        if code in op.ENDS_MESSAGE:
            self.msn = (self.msn + 1) & PSN_MASK
            self.c.messages_received += 1
            self.ack_pending = True
            if self.owner is not None:
                whole = b"".join(self.msg_payload) if code in op.SENDS else b""
                self.owner.on_message(self, code, self.msg_bytes, imm, whole, now_ns)
        elif ackreq or self.since_ack >= self.p.ack_every:
            self.ack_pending = True
