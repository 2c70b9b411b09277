"""Fast RoCEv2 transport codec (struct only): BTH, RETH, AETH, ImmDt, CTS, ICRC, UDP sport.

The RNIC hot path builds and parses every packet here; ``tests/traffic`` checks these bytes
equal scapy's (``emulator.traffic.headers``) and that scapy recomputes the same ICRC.

ICRC (RoCEv2 invariant CRC, IBTA Annex A17): CRC-32 (zlib) over
``8 x 0xFF | IPv4 header | UDP header | BTH | ... payload`` where the variant fields are
replaced by ones: IPv4 TOS (DSCP+ECN), TTL and header checksum, UDP checksum, and BTH byte 4
(FECN, BECN, resv6). The CRC is appended least significant byte first.
"""

from __future__ import annotations

import struct
import zlib
from typing import NamedTuple

from emulator.traffic import opcodes as op

BTH_LEN = 12
RETH_LEN = 16
AETH_LEN = 4
IMM_LEN = 4
ICRC_LEN = 4
DEFAULT_PKEY = 0xFFFF
PSN_MASK = 0xFFFFFF

_BTH = struct.Struct("!BBHII")
_RETH = struct.Struct("!QII")
_U32 = struct.Struct("!I")
_CTS = struct.Struct("!QIIQ")
CTS_LEN = _CTS.size
_FF8 = b"\xff" * 8
_ONES_BYTE = b"\xff"


def udp_sport(lqpn: int, rqpn: int) -> int:
    """UDP source port of a QP, as Linux RNIC drivers derive it for ECMP entropy.

    ``rdma_calc_flow_label``: v = lqpn * rqpn; v ^= v >> 20; v ^= v >> 40; fl = v & 0xFFFFF;
    ``rdma_flow_label_to_udp_sport``: fold fl's top 6 bits into its low 14 bits, OR 0xC000.
    The result is in 0xC000-0xFFFF and symmetric in the two QPNs.
    """
    v = (lqpn & PSN_MASK) * (rqpn & PSN_MASK)
    v ^= v >> 20
    v ^= v >> 40
    fl = v & 0xFFFFF
    low = (fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)
    return 0xC000 | low


def pack_bth(
    opcode: int,
    dqpn: int,
    psn: int,
    *,
    ackreq: bool = False,
    padcount: int = 0,
    solicited: bool = False,
    becn: bool = False,
    fecn: bool = False,
    pkey: int = DEFAULT_PKEY,
) -> bytes:
    """The 12-byte Base Transport Header."""
    b1 = (int(solicited) << 7) | ((padcount & 3) << 4)
    w1 = (int(fecn) << 31) | (int(becn) << 30) | (dqpn & PSN_MASK)
    w2 = (int(ackreq) << 31) | (psn & PSN_MASK)
    return _BTH.pack(opcode, b1, pkey, w1, w2)


def pack_reth(va: int, rkey: int, dma_len: int) -> bytes:
    """The 16-byte RDMA Extended Transport Header."""
    return _RETH.pack(va & 0xFFFFFFFFFFFFFFFF, rkey & 0xFFFFFFFF, dma_len & 0xFFFFFFFF)


def pack_aeth(syndrome: int, msn: int) -> bytes:
    """The 4-byte ACK Extended Transport Header."""
    return _U32.pack(((syndrome & 0xFF) << 24) | (msn & PSN_MASK))


def pack_imm(imm: int) -> bytes:
    """The 4-byte immediate data header."""
    return _U32.pack(imm & 0xFFFFFFFF)


def pack_cts(va: int, length: int, tag: int, ts_ns: int) -> bytes:
    """Payload of a CTS message (see :class:`emulator.traffic.headers.CTS`)."""
    return _CTS.pack(va, length, tag & 0xFFFFFFFF, ts_ns & 0xFFFFFFFFFFFFFFFF)


def unpack_cts(payload: bytes) -> tuple[int, int, int, int]:
    """(va, length, tag, ts_ns) of a CTS payload."""
    return _CTS.unpack_from(payload, 0)


class Transport(NamedTuple):
    """A parsed BTH and its extension headers; ``payload`` excludes pad bytes and ICRC."""

    opcode: int
    dqpn: int
    psn: int
    ackreq: bool
    becn: bool
    va: int
    rkey: int
    dma_len: int
    syndrome: int
    msn: int
    imm: int | None
    payload: bytes


def encode_transport(
    opcode: int,
    dqpn: int,
    psn: int,
    payload: bytes = b"",
    *,
    ackreq: bool = False,
    reth: tuple[int, int, int] | None = None,
    aeth: tuple[int, int] | None = None,
    imm: int | None = None,
) -> bytes:
    """BTH + extension headers + payload (padded to 4 bytes); the framing adds the ICRC."""
    pad = -len(payload) & 3
    parts = [pack_bth(opcode, dqpn, psn, ackreq=ackreq, padcount=pad)]
    if reth is not None:
        parts.append(pack_reth(*reth))
    if aeth is not None:
        parts.append(pack_aeth(*aeth))
    if imm is not None:
        parts.append(pack_imm(imm))
    parts.append(payload)
    if pad:
        parts.append(b"\x00" * pad)
    return b"".join(parts)


def decode_transport(data: bytes) -> Transport | None:
    """Parse BTH + extensions of ``data`` (which ends before the ICRC); None if malformed."""
    if len(data) < BTH_LEN:
        return None
    opcode, b1, _pkey, w1, w2 = _BTH.unpack_from(data, 0)
    off = BTH_LEN
    va = rkey = dma_len = 0
    syndrome = msn = 0
    imm = None
    try:
        if opcode in op.HAS_RETH:
            va, rkey, dma_len = _RETH.unpack_from(data, off)
            off += RETH_LEN
        elif opcode == op.RC_ACK:
            (word,) = _U32.unpack_from(data, off)
            syndrome, msn = word >> 24, word & PSN_MASK
            off += AETH_LEN
        if opcode in op.HAS_IMM:
            (imm,) = _U32.unpack_from(data, off)
            off += IMM_LEN
    except struct.error:
        return None
    pad = (b1 >> 4) & 3
    end = len(data) - pad
    if end < off:
        return None
    return Transport(
        opcode,
        w1 & PSN_MASK,
        w2 & PSN_MASK,
        bool(w2 >> 31),
        bool((w1 >> 30) & 1),
        va,
        rkey,
        dma_len,
        syndrome,
        msn,
        imm,
        data[off:end],
    )


def icrc_ipv4(ip_header: bytes, udp_header: bytes, transport: bytes) -> bytes:
    """The 4 ICRC bytes (little-endian CRC-32) for an IPv4/UDP/BTH packet.

    ``ip_header`` and ``udp_header`` are the real headers; their variant fields are masked here.
    """
    crc = zlib.crc32(_masked_headers(ip_header, udp_header) + transport[:4] + _ONES_BYTE)
    crc = zlib.crc32(memoryview(transport)[5:], crc)
    return struct.pack("<I", crc)


def _masked_headers(ip_header: bytes, udp_header: bytes) -> bytes:
    """The ICRC's first bytes: 8 x 0xFF, then both headers with their variant fields ones."""
    masked_ip = (
        ip_header[:1] + _ONES_BYTE + ip_header[2:8] + _ONES_BYTE + ip_header[9:10] + b"\xff\xff"
    ) + ip_header[12:]
    return _FF8 + masked_ip + udp_header[:6] + b"\xff\xff"


def icrc_headers_state(ip_header: bytes, udp_header: bytes) -> int:
    """The ICRC's CRC-32 state after the (masked) IPv4 and UDP headers, to continue over
    the transport bytes (the same headers serve every packet of one length on one path)."""
    return zlib.crc32(_masked_headers(ip_header, udp_header))
