"""NCCL-style connections: several data QPs + one CTS control QP between two RNICs.

A connection moves tagged messages. With admission on (Meta's setup) the receiver clears
each chunk with a CTS (a SEND on the control QP, high-priority DSCP) carrying buffer address
and size; the sender writes a chunk (RDMA WRITE with immediate = tag) only after its CTS::

    receiver                         sender
    recv(n, tag) ── CTS(va, len, tag, ts) ──► (waits for send(n, tag))
                 ◄── WRITE_IMM(va, chunk, imm=tag) on data QP (round robin)
    chunk done  ── next CTS (keeps ``cts_window`` chunks cleared) ...

Without admission the sender writes all chunks at once. Completions (send: all chunks
acknowledged; recv: all bytes arrived) go to the RNIC owner's completion handler.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from emulator.errors import UserError
from emulator.traffic import opcodes as op
from emulator.traffic import seeding
from emulator.traffic.qos import tc_of_dscp
from emulator.traffic.qp import QueuePair, WorkRequest
from emulator.traffic.rnic import Rnic
from emulator.traffic.roce import CTS_LEN, pack_cts, unpack_cts

MAX_QPS = 256  # data QPs per connection (plus the control QP)
QP_SLOTS = MAX_QPS + 1  # QP slots per connection on each RNIC (control QP first)
MAX_CONN_ID = 0xFFFFFD // QP_SLOTS - 1


@dataclass(frozen=True)
class ConnSpec:
    """Everything both ends need to build a connection independently (out-of-band setup)."""

    conn_id: int
    a_ip: str
    b_ip: str
    num_qps: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.num_qps <= MAX_QPS:
            raise UserError(f"connection {self.conn_id}: num_qps must be 1..{MAX_QPS}")
        if not 0 <= self.conn_id <= MAX_CONN_ID:
            raise UserError(f"connection id {self.conn_id} out of range (0..{MAX_CONN_ID})")

    def ip(self, side: str) -> str:
        """The address of ``side`` ('a' or 'b')."""
        return self.a_ip if side == "a" else self.b_ip

    def qpns(self, side: str) -> list[int]:
        """QPNs of ``side`` ('a' or 'b'): control QP first, then the data QPs.

        Random 24-bit QPNs from the seed, distinct on each RNIC (as a real RNIC allocates
        them), derived by both ends alike as if exchanged out of band.
        """
        ip, base = self.ip(side), self.conn_id * QP_SLOTS
        return [seeding.qpn(self.seed, ip, base + i) for i in range(self.num_qps + 1)]

    def ipsn(self, side: str, index: int) -> int:
        """Initial PSN of a QP (random from the seed, as if exchanged out of band)."""
        return seeding.ipsn(self.seed, self.conn_id, side, index)


@dataclass(frozen=True)
class Completion:
    """A finished send or receive of a tagged message."""

    kind: str  # "send" | "recv"
    conn_id: int
    peer: str
    tag: int
    nbytes: int
    posted_ns: int
    done_ns: int


class _Op:
    __slots__ = ("acked", "cts_issued", "done", "nbytes", "outstanding", "posted_ns", "sent")

    def __init__(self, nbytes: int, posted_ns: int) -> None:
        self.nbytes, self.posted_ns = nbytes, posted_ns
        self.sent = self.acked = self.cts_issued = self.outstanding = 0
        self.done = False


class Connection:
    """One end of a connection on ``nic``."""

    def __init__(self, nic: Rnic, spec: ConnSpec, side: str) -> None:
        if side not in ("a", "b"):
            raise UserError(f"connection side must be 'a' or 'b', not {side!r}")
        self.nic, self.spec, self.side = nic, spec, side
        other = "b" if side == "a" else "a"
        self.peer = spec.b_ip if side == "a" else spec.a_ip
        cfg = nic.config
        mine, theirs = spec.qpns(side), spec.qpns(other)
        qps = []
        for i, (lq, rq) in enumerate(zip(mine, theirs)):
            dscp = cfg.qos.dscp_cts if i == 0 else cfg.qos.dscp_bulk
            sport = seeding.udp_sport(
                cfg.udp_sport, spec.seed, nic.ip, (lq, rq), (mine[0], theirs[0])
            )
            qps.append(
                nic.create_qp(
                    lq,
                    rq,
                    self.peer,
                    dscp,
                    tc_of_dscp(dscp),
                    spec.ipsn(side, i),
                    spec.ipsn(other, i),
                    owner=self,
                    sport=sport,
                )
            )
        self.ctrl: QueuePair = qps[0]
        self.data: list[QueuePair] = qps[1:]
        self._rr = 0
        self.rkey = (spec.conn_id << 8) | (1 if side == "a" else 2)
        self._va_next = 0x1000_0000 * (1 + spec.conn_id % 0xFFFF)
        self._sends: dict[int, _Op] = {}
        self._recvs: dict[int, _Op] = {}
        self._credits: dict[int, deque[tuple[int, int]]] = {}
        self._unexpected: dict[int, int] = {}

    # ---------------------------------------------------------------- API
    def send(self, nbytes: int, tag: int, now_ns: int) -> None:
        """Send ``nbytes`` tagged ``tag`` to the peer (which must ``recv`` the same size/tag)."""
        if nbytes <= 0 or tag in self._sends:
            raise UserError(f"bad send: {nbytes} bytes, tag {tag} (tags must be unique, size > 0)")
        sop = _Op(nbytes, now_ns)
        self._sends[tag] = sop
        if self.nic.config.admission:
            self._use_credits(tag, sop, now_ns)
            return
        chunk = self.nic.config.chunk_bytes
        while sop.sent < nbytes:
            n = min(chunk, nbytes - sop.sent)
            self._write(tag, 0, n, now_ns)
            sop.sent += n

    def recv(self, nbytes: int, tag: int, now_ns: int) -> None:
        """Expect ``nbytes`` tagged ``tag`` from the peer."""
        if nbytes <= 0 or tag in self._recvs:
            raise UserError(f"bad recv: {nbytes} bytes, tag {tag} (tags must be unique, size > 0)")
        rop = _Op(nbytes, now_ns)
        self._recvs[tag] = rop
        rop.acked = self._unexpected.pop(tag, 0)
        if self.nic.config.admission:
            self._issue_cts(tag, rop, now_ns)
        self._check_recv(tag, rop, now_ns)

    # ---------------------------------------------------------------- internals
    def _write(self, tag: int, va: int, n: int, now_ns: int) -> None:
        qp = self.data[self._rr % len(self.data)]
        self._rr += 1
        qp.post(WorkRequest(False, n, va=va, rkey=self.rkey, imm=tag, wr_id=tag, posted_ns=now_ns))
        self.nic.kick(qp)

    def _use_credits(self, tag: int, sop: _Op, now_ns: int) -> None:
        credits = self._credits.get(tag)
        while credits and sop.sent < sop.nbytes:
            va, length = credits.popleft()
            n = min(length, sop.nbytes - sop.sent)
            self._write(tag, va, n, now_ns)
            sop.sent += n
        if credits is not None and not credits:
            del self._credits[tag]

    def _issue_cts(self, tag: int, rop: _Op, now_ns: int) -> None:
        cfg = self.nic.config
        while rop.outstanding < cfg.cts_window and rop.cts_issued < rop.nbytes:
            n = min(cfg.chunk_bytes, rop.nbytes - rop.cts_issued)
            va = self._va_next
            self._va_next += n
            payload = pack_cts(va, n, tag, now_ns)
            self.ctrl.post(WorkRequest(True, CTS_LEN, payload=payload, wr_id=tag, posted_ns=now_ns))
            self.nic.counters.cts_sent += 1
            rop.cts_issued += n
            rop.outstanding += 1
        self.nic.kick(self.ctrl)

    def _check_recv(self, tag: int, rop: _Op, now_ns: int) -> None:
        if not rop.done and rop.acked >= rop.nbytes:
            rop.done = True
            self._complete(
                Completion(
                    "recv", self.spec.conn_id, self.peer, tag, rop.nbytes, rop.posted_ns, now_ns
                )
            )

    def _complete(self, c: Completion) -> None:
        if c.kind == "send":
            del self._sends[c.tag]
        else:
            del self._recvs[c.tag]
        self.nic.complete(c)

    # ---------------------------------------------------------------- QpOwner
    def on_wr_complete(self, qp: QueuePair, wr: WorkRequest, now_ns: int) -> None:
        """A data chunk (or CTS) was acknowledged."""
        if wr.is_send:
            return
        sop = self._sends.get(wr.wr_id)
        if sop is None:
            return
        sop.acked += wr.length
        if not sop.done and sop.acked >= sop.nbytes:
            sop.done = True
            self._complete(
                Completion(
                    "send",
                    self.spec.conn_id,
                    self.peer,
                    wr.wr_id,
                    sop.nbytes,
                    sop.posted_ns,
                    now_ns,
                )
            )

    def on_message(
        self, qp: QueuePair, opcode: int, nbytes: int, imm: int | None, payload: bytes, now_ns: int
    ) -> None:
        """A CTS (on the control QP) or a data chunk (WRITE with immediate) arrived."""
        if opcode in op.SENDS:
            if len(payload) < CTS_LEN:
                return
            va, length, tag, ts = unpack_cts(payload)
            c = self.nic.counters
            c.cts_received += 1
            c.cts_latency_ns.append(now_ns - ts)
            self._credits.setdefault(tag, deque()).append((va, length))
            sop = self._sends.get(tag)
            if sop is not None:
                self._use_credits(tag, sop, now_ns)
            return
        if imm is None:
            return
        rop = self._recvs.get(imm)
        if rop is None:
            self._unexpected[imm] = self._unexpected.get(imm, 0) + nbytes
            return
        rop.acked += nbytes
        if self.nic.config.admission:
            rop.outstanding -= 1
            self._issue_cts(imm, rop, now_ns)
        self._check_recv(imm, rop, now_ns)


def connect_pair(nic_a: Rnic, nic_b: Rnic, spec: ConnSpec) -> tuple[Connection, Connection]:
    """Open both ends of ``spec`` (``nic_a`` has ``spec.a_ip``, ``nic_b`` ``spec.b_ip``)."""
    if nic_a.ip != spec.a_ip or nic_b.ip != spec.b_ip:
        raise UserError(f"connection {spec.conn_id}: RNIC addresses do not match the spec")
    return Connection(nic_a, spec, "a"), Connection(nic_b, spec, "b")
