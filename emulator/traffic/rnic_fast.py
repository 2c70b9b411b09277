"""The ``FASTNIC`` speed-up: an RNIC whose per-packet work takes a handful of Python calls.

:class:`FastRnic` is a :class:`~emulator.traffic.rnic.Rnic` for the RoCEv2 framing whose
hot methods do what the base's do (same frames, same counters, same wake-up times):

* ``on_frame``: a well-formed RoCEv2 frame (IPv4 without options, UDP 4791) is read at
  fixed offsets (``Ether 0 | IPv4 14 | UDP 34 | BTH 42``) in place of ``Framing.decode``
  and ``decode_transport``; the ICRC continues a CRC-32 state kept per received
  IPv4+UDP header (the same header bytes always give the same state); an in-sequence
  SEND / RDMA WRITE packet goes straight to ``QueuePair.take``, an ACK/NAK to
  ``QueuePair.on_aeth`` (no ``Transport``). Anything else (PFC, other frames, CNPs, out of
  sequence) takes the base's path;
* ``poll``: the QP predicate (``has_work``) inlined;
* QPs are :class:`~emulator.traffic.qp_fast.FastQueuePair`.

``make_rnic`` builds one when the speed-up is on and the framing is RoCEv2 (the IB framing
keeps the base). ``tests/traffic/test_rnic_fast.py`` runs both side by side.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from emulator import speedups
from emulator.traffic import opcodes as op
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.framing_fast import TemplateRoceV2Framing, default_framing
from emulator.traffic.qp import QueuePair
from emulator.traffic.qp_fast import FastQueuePair
from emulator.traffic.rnic import Rnic
from emulator.traffic.roce import PSN_MASK, icrc_headers_state
from emulator.vocab import ECN_CE, UDP_PORT_ROCEV2, WIRE_OVERHEAD_BYTES, EtherType

_IPV4 = int(EtherType.IPV4)
#: Ether dst, type | IPv4 version+IHL, TOS, total length, protocol | UDP dport | BTH
#: opcode, byte 1 (pad count), word 1 (dest QP), word 2 (AckReq, PSN): offsets 0..53
_HEAD = struct.Struct("!6s6xHBBH5xB12xH4xBB2xII")
_U32BE = struct.Struct("!I")
_U32LE = struct.Struct("<I")
_ONE = b"\xff"
#: received IPv4+UDP+BTH[:4] headers whose ICRC state is kept (cleared when full)
MAX_ICRC_STATES = 512
#: SEND / RDMA WRITE opcode -> offset of its payload in the frame (BTH at 42, RETH, ImmDt)
_REQUESTS = op.SENDS | op.STARTS_MESSAGE | op.ENDS_MESSAGE | {op.RC_RDMA_WRITE_MIDDLE}
_PAYLOAD_AT = {
    code: 54 + (16 if code in op.HAS_RETH else 0) + (4 if code in op.HAS_IMM else 0)
    for code in _REQUESTS
}
_SENDS, _HAS_IMM, _RC_ACK = op.SENDS, op.HAS_IMM, op.RC_ACK
_crc32 = zlib.crc32
#: the framings whose bytes ``FastRnic`` reads (not subclasses: they may change them)
_ROCEV2 = (RoceV2Framing, TemplateRoceV2Framing)


class FastRnic(Rnic):
    """An RNIC with the per-packet paths inlined (RoCEv2 framing only)."""

    qp_class: type[QueuePair] = FastQueuePair

    def _prepare(self) -> None:
        """The inlined paths' state (run last in ``Rnic.__init__``)."""
        self._icrc: dict[bytes, int] = {}
        self._verify = self.config.verify_icrc
        self._link_bps = self.config.link_bps
        self._jitter = self.config.tx_jitter_ns

    def on_frame(self, frame: bytes, now_ns: int) -> None:
        """As :meth:`Rnic.on_frame`."""
        n = len(frame)
        if n < 58:
            Rnic.on_frame(self, frame, now_ns)
            return
        dmac, etype, vihl, tos, length, proto, dport, code, b1, w1, w2 = _HEAD.unpack_from(frame)
        end = 14 + length
        if (
            etype != _IPV4
            or dmac != self._mac_raw
            or vihl & 15 != 5
            or proto != 17
            or dport != UDP_PORT_ROCEV2
            or end > n
            or end < 58
        ):
            Rnic.on_frame(self, frame, now_ns)
            return
        if now_ns > self._now:
            self._now = now_ns
        c = self.counters
        c.rx_pkts += 1
        c.rx_bytes += n
        tend = end - 4
        if self._verify:
            key = frame[14:46]
            state = self._icrc.get(key)
            if state is None:
                state = self._icrc_state(key)
            if _crc32(memoryview(frame)[47:tend], state) != _U32LE.unpack_from(frame, tend)[0]:
                c.icrc_errors += 1
                return
        off = _PAYLOAD_AT.get(code)
        if off is not None:
            pend = tend - ((b1 >> 4) & 3)
            if pend < off:
                c.not_for_us += 1
                return
            qp = self.qps.get(w1 & PSN_MASK)
            if qp is None:
                c.unknown_qp += 1
                return
            if w2 & PSN_MASK == qp.epsn and not qp.ahead:
                imm = _U32BE.unpack_from(frame, off - 4)[0] if code in _HAS_IMM else None
                payload = frame[off:pend] if code in _SENDS else b""
                ce = tos & 3 == ECN_CE
                qp.take(code, pend - off, payload, imm, w2 >= 0x80000000, ce, now_ns)
                self._scheduled(qp)
                return
        elif code == _RC_ACK and tend - ((b1 >> 4) & 3) >= 58:  # BTH + AETH
            qp = self.qps.get(w1 & PSN_MASK)
            if qp is None:
                c.unknown_qp += 1
                return
            qp.on_aeth(frame[54], w2 & PSN_MASK, now_ns)
            self._scheduled(qp)
            return
        self._on_transport(frame[42:tend], tos & 3 == ECN_CE, now_ns)

    def _icrc_state(self, key: bytes) -> int:
        """The ICRC's CRC-32 state after the IPv4+UDP header and the first 4 BTH bytes
        ``key`` and the masked 5th (kept)."""
        state = zlib.crc32(key[28:] + _ONE, icrc_headers_state(key[:20], key[20:28]))
        if len(self._icrc) >= MAX_ICRC_STATES:
            self._icrc.clear()
        self._icrc[key] = state
        return state

    def _scheduled(self, qp: QueuePair) -> None:
        """As the end of :meth:`Rnic._dispatch`: track the QP's timer, schedule it."""
        dl = qp.rto_deadline
        if dl is not None:
            self._arm(qp, dl)
        if not qp.active and qp.has_work():
            qp.active = True
            self._active[qp.tc].append(qp)

    def poll(self, now_ns: int) -> bytes | None:
        """As :meth:`Rnic.poll`."""
        if now_ns > self._now:
            self._now = now_ns
        rto = self._rto_min
        if rto is not None and rto <= now_ns:
            self._fire_timers(now_ns)
        if now_ns < self._tx_free_at:
            return None
        active, paused = self._active, self._paused_until
        for tc in self._tc_order:
            dq = active[tc]
            if not dq or paused[tc] > now_ns:
                continue
            for _ in range(len(dq)):
                qp = dq.popleft()
                if not (
                    qp.ack_pending
                    or qp.nak_pending
                    or qp.cnp_pending
                    or (
                        qp.error is None
                        and (
                            qp.resend < len(qp.inflight)
                            or (qp.pending and len(qp.inflight) < qp.max_inflight)
                        )
                    )
                ):
                    qp.active = False
                    continue
                dq.append(qp)
                frame = qp.next_frame(now_ns)
                if frame is not None:
                    break
            else:
                continue
            break
        else:
            return None
        dl = qp.rto_deadline
        if dl is not None:
            self._arm(qp, dl)
        c = self.counters
        c.tx_pkts += 1
        n = len(frame)
        c.tx_bytes += n
        free = now_ns + int(((n + WIRE_OVERHEAD_BYTES) * 8e9) // self._link_bps) + 1
        if self._jitter:
            free += self.rng.randint(0, self._jitter)
        self._tx_free_at = free
        return frame


def make_rnic(mac: str, ip: str, gateway_mac: str, **kwargs: Any) -> Rnic:
    """An :class:`Rnic` (a :class:`FastRnic` when ``FASTNIC`` is on and the framing is
    RoCEv2's own); keyword arguments as :class:`Rnic`'s (framing, seed, config, name)."""
    fr = kwargs.pop("framing", None) or default_framing()
    cls = FastRnic if speedups.enabled("FASTNIC") and type(fr) in _ROCEV2 else Rnic
    return cls(mac, ip, gateway_mac, framing=fr, **kwargs)
