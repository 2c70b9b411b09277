"""The ``FASTNIC`` speed-up, QP side: a queue pair whose frames are built with fewer calls.

:class:`FastQueuePair` does what :class:`~emulator.traffic.qp.QueuePair` does, byte for
byte: ACKs and data packets are packed with one ``struct`` call per header and framed
from the path's templates (``framing_fast``; without them through the framing) in place
of ``encode_transport`` / ``pack_bth`` / ``Framing.encode``; CNPs and the rare cases go to
the base. ``tests/traffic/test_rnic_fast.py`` compares every frame with the base's.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from emulator.traffic import opcodes as op
from emulator.traffic.framing import RocePath
from emulator.traffic.qp import QueuePair
from emulator.traffic.roce import DEFAULT_PKEY, PSN_MASK
from emulator.vocab import WIRE_OVERHEAD_BYTES

_ACK = struct.Struct("!BBHIII")  # BTH + AETH of an ACK / NAK
_BTH = struct.Struct("!BBHII")
_RETH = struct.Struct("!QII")
_U32 = struct.Struct("!I")
_ZEROS = bytes(16384)
_PADS = (b"", b"\x00", b"\x00\x00", b"\x00\x00\x00")
_ONE = b"\xff"
_U64 = 0xFFFFFFFFFFFFFFFF
_U32_MASK = 0xFFFFFFFF
_NAK = op.AETH_NAK_SEQ_ERR << 24
_AETH_ACK = op.AETH_ACK << 24
_RC_ACK = op.RC_ACK
_HAS_RETH, _HAS_IMM, _ENDS = op.HAS_RETH, op.HAS_IMM, op.ENDS_MESSAGE
_crc32 = zlib.crc32


class FastQueuePair(QueuePair):
    """A queue pair with an inlined ``next_frame`` (same frames, same state changes)."""

    def _prepare(self) -> None:
        """The inlined paths' state (run last in ``QueuePair.__init__``)."""
        self._rto_ns = self.p.rto_ns

    def _frame(self, transport: bytes) -> bytes:
        """``framing.encode(path, transport)``, from the path's template when it has one."""
        path = self.path
        hit = path.templates.get(len(transport)) if type(path) is RocePath else None
        if hit is None:
            return self.framing.encode(path, transport)
        head, state = hit
        crc = _crc32(transport[:4] + _ONE, state)
        crc = _crc32(memoryview(transport)[5:], crc)
        return b"".join((head, transport, crc.to_bytes(4, "little")))

    def next_frame(self, now_ns: int) -> bytes | None:
        """As :meth:`QueuePair.next_frame`."""
        if self.nak_pending or self.ack_pending:
            nak = self.nak_pending
            self.nak_pending = self.ack_pending = False
            self.since_ack = 0
            epsn, msn = self.epsn, self.msn & PSN_MASK
            if nak:
                self.c.naks_sent += 1
                word = _NAK | msn
            else:
                self.c.acks_sent += 1
                word, epsn = _AETH_ACK | msn, (epsn - 1) & PSN_MASK
            dqpn = self.remote_qpn & PSN_MASK
            return self._frame(_ACK.pack(_RC_ACK, 0, DEFAULT_PKEY, dqpn, epsn & PSN_MASK, word))
        if self.cnp_pending:
            return QueuePair.next_frame(self, now_ns)
        if now_ns < self.next_tx_ns or self.error is not None:
            return None
        infl = self.inflight
        if self.resend < len(infl):
            entry = infl[self.resend]
            self.resend += 1
            self.c.retransmitted_pkts += 1
        elif self.pending and len(infl) < self.max_inflight:
            entry = self._segment()
            infl.append(entry)
            self.resend = len(infl)
        else:
            return None
        if self.rto_deadline is None:
            self.rto_deadline = now_ns + self._rto_ns
        frame = self._data_frame(entry)
        c = self.c
        c.tx_data_pkts += 1
        c.tx_payload_bytes += entry[3]
        rate = self.p.rate_bps
        if self.dcqcn is not None:
            r = self.dcqcn.rate(now_ns)
            rate = r if rate is None else min(rate, r)
        if rate:
            self.next_tx_ns = now_ns + int(((len(frame) + WIRE_OVERHEAD_BYTES) * 8e9) // rate) + 1
        return frame

    def _data_frame(self, entry: tuple[int, Any, int, int, int]) -> bytes:
        """As ``framing.encode(path, QueuePair._build(entry))``: BTH [RETH] [ImmDt] payload
        pad, framed; the ICRC continued over the pieces (no joined transport bytes)."""
        psn, wr, off, length, code = entry
        if wr.is_send:
            payload = wr.payload[off : off + length]
        else:
            payload = _ZEROS[:length] if length <= 16384 else bytes(length)
        pad = -len(payload) & 3
        w2 = psn & PSN_MASK
        if code in _ENDS:
            w2 |= 0x80000000
        dqpn = self.remote_qpn & PSN_MASK
        ext = b""
        if code in _HAS_RETH:
            ext = _RETH.pack(wr.va & _U64, wr.rkey & _U32_MASK, wr.length & _U32_MASK)
        if code in _HAS_IMM and wr.imm is not None:
            ext += _U32.pack(wr.imm & _U32_MASK)
        bth = _BTH.pack(code, pad << 4, DEFAULT_PKEY, dqpn, w2)
        path = self.path
        n = 12 + len(ext) + len(payload) + pad
        hit = path.templates.get(n) if type(path) is RocePath else None
        if hit is None:
            return self.framing.encode(path, b"".join((bth, ext, payload, _PADS[pad])))
        head, state = hit
        # the ICRC sees BTH byte 4 (FECN, BECN, resv6: all 0 here) as ones
        crc = _crc32(_BTH.pack(code, pad << 4, DEFAULT_PKEY, 0xFF000000 | dqpn, w2), state)
        if ext:
            crc = _crc32(ext, crc)
        crc = _crc32(payload, crc)
        if pad:
            crc = _crc32(_PADS[pad], crc)
        return b"".join((head, bth, ext, payload, _PADS[pad], crc.to_bytes(4, "little")))
