"""InfiniBand framing of the emulated RNIC: Ethernet shim / LRH / BTH ... / ICRC / VCRC.

A :class:`~emulator.traffic.framing.Framing` plug-in: QPs, workloads and collectives are
the RoCE code; only the wire format differs::

    Ether(dst=peer HCA MAC, src, 0x88B5) / LRH(VL, SL, DLID, SLID, PktLen) / BTH ... payload
      / ICRC (4, CRC-32 over LRH with VL=1s, BTH with its resv8a byte=1s, payload)
      / VCRC (2, CRC-16 poly 0x100B over LRH..ICRC)

IB switches forward on the DLID and never rewrite MACs, so the shim carries the
destination HCA's MAC end to end. With LMC > 0 a QP uses LID ``base + sport % 2**lmc``
(sport: the RoCE UDP source port derived from the QPNs), so QPs spread over OpenSM's paths.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from emulator.errors import UserError
from emulator.ib.headers import ETHERTYPE_IB_SHIM, LNH_IBA_LOCAL
from emulator.traffic.framing import Decoded, ip_bytes, mac_bytes

_SHIM = ETHERTYPE_IB_SHIM.to_bytes(2, "big")
ICRC_LEN, VCRC_LEN, LRH_LEN = 4, 2, 8
_MAX_RC_REQUEST = 0x0B  # RC SEND / RDMA WRITE opcodes carry data; ACK is 0x11
_ONES = b"\xff"


def _crc16_table(poly_reflected: int) -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly_reflected if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_VCRC_TABLE = _crc16_table(0xD008)  # 0x100B bit-reversed


def vcrc(data: bytes) -> int:
    """CRC-16 (polynomial 0x100B, seed 0xFFFF, reflected, inverted) over ``data``."""
    crc = 0xFFFF
    for b in data:
        crc = (crc >> 8) ^ _VCRC_TABLE[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFF


def icrc_ib(lrh: bytes, transport: bytes) -> bytes:
    """The 4 ICRC bytes (little-endian CRC-32) of a local (LRH + BTH) IB packet."""
    crc = zlib.crc32(bytes((lrh[0] | 0xF0,)) + lrh[1:] + transport[:4] + _ONES)
    return struct.pack("<I", zlib.crc32(memoryview(transport)[5:], crc))


@dataclass(frozen=True)
class IbEndpoint:
    """An HCA as the framing sees it: its MAC and its LIDs (2**lmc of them)."""

    mac: str
    lids: tuple[int, ...]


@dataclass(frozen=True)
class IbPath:
    """Precomputed shim and LRH fields of one QP's frames."""

    eth: bytes
    lrh_first: int  # VL << 4 | LVer (0)
    sl_lnh: int
    dlid: int
    slid: int


class IbFraming:
    """LRH + BTH framing over the 0x88B5 shim; ``endpoints`` maps IPv4 address -> HCA."""

    name = "ib"
    overhead_bytes = 14 + LRH_LEN + ICRC_LEN + VCRC_LEN

    def __init__(
        self, endpoints: Mapping[str, IbEndpoint], data_vls: int = 1, sl_of_dscp: int = 3
    ) -> None:
        if not 1 <= data_vls <= 15:
            raise UserError(f"IB data VLs must be 1..15, got {data_vls}")
        self.endpoints = dict(endpoints)
        self.data_vls = data_vls  # the HCA's SL2VL: VL = SL % data_vls, as every switch
        self._lid_ip = {lid: ip for ip, ep in self.endpoints.items() for lid in ep.lids}
        self.sl_shift = sl_of_dscp  # SL = DSCP >> 3 (the DSCP class selector, 0..7)

    def to_dict(self) -> dict[str, object]:
        """JSON form (an RNIC process's config): :func:`framing_from_dict` reverses it."""
        return {
            "kind": self.name,
            "data_vls": self.data_vls,
            "sl_of_dscp": self.sl_shift,
            "endpoints": {ip: [ep.mac, list(ep.lids)] for ip, ep in self.endpoints.items()},
        }

    def _endpoint(self, ip: str) -> IbEndpoint:
        try:
            return self.endpoints[ip]
        except KeyError:
            raise UserError(f"IB framing: no HCA has address {ip}") from None

    def make_path(
        self, src_mac: str, dst_mac: str, src: str, dst: str, sport: int, dscp: int, ecn: int
    ) -> IbPath:
        """Header template from ``src`` to ``dst``; SL from the DSCP class, LID by sport."""
        me, peer = self._endpoint(src), self._endpoint(dst)
        sl = (dscp >> self.sl_shift) & 0xF
        pick = sport % len(peer.lids)
        eth = mac_bytes(peer.mac) + mac_bytes(src_mac) + _SHIM
        vl = sl % self.data_vls
        slid = me.lids[pick % len(me.lids)]
        return IbPath(eth, vl << 4, (sl << 4) | LNH_IBA_LOCAL, peer.lids[pick], slid)

    def encode(self, path: object, transport: bytes) -> bytes:
        """Shim + LRH + transport + ICRC + VCRC."""
        assert isinstance(path, IbPath)
        words = (LRH_LEN + len(transport) + ICRC_LEN + 3) // 4
        lrh = struct.pack("!BBHHH", path.lrh_first, path.sl_lnh, path.dlid, words, path.slid)
        body = lrh + transport + icrc_ib(lrh, transport)
        return path.eth + body + struct.pack("!H", vcrc(body))

    def addressed_to(self, frame: bytes, local: bytes) -> bool:
        """Destination MAC check (the shim carries the destination HCA's MAC)."""
        return frame[0:6] == local

    def flow_key(self, frame: bytes) -> tuple[bytes, int] | None:
        """(destination IPv4 bytes, destination QPN) of a data frame (RC SEND/WRITE), else None.

        The key the runtime's flow attribution uses for RoCE frames, so IB runs report the
        uplinks each flow took in the same way.
        """
        if len(frame) < 34 or frame[12:14] != _SHIM or frame[22] > _MAX_RC_REQUEST:
            return None
        ip = self._lid_ip.get(int.from_bytes(frame[16:18], "big"))
        if ip is None:
            return None
        return ip_bytes(ip), int.from_bytes(frame[27:30], "big")

    def decode(self, frame: bytes, verify_icrc: bool = False) -> Decoded | None:
        """Transport bytes of an IB shim frame; FECN maps to ECN CE (tos 3)."""
        if len(frame) < 14 + LRH_LEN + 12 + ICRC_LEN + VCRC_LEN or frame[12:14] != _SHIM:
            return None
        lrh = frame[14:22]
        if lrh[1] & 3 != LNH_IBA_LOCAL:
            return None
        end = 14 + ((lrh[4] & 0x7) << 8 | lrh[5]) * 4  # PktLen words: LRH..ICRC
        if end > len(frame) - VCRC_LEN or end < 22 + 12 + ICRC_LEN:
            return None
        transport = frame[22 : end - ICRC_LEN]
        ok = None
        if verify_icrc:
            # the ICRC only: the VCRC covers the LRH, which switches rewrite (VL) per hop,
            # and the P4 switches do not recompute it (see docs/ib.md)
            ok = icrc_ib(lrh, transport) == frame[end - ICRC_LEN : end]
        dlid, slid = struct.unpack("!H2xH", lrh[2:8])
        src = ip_bytes(self._lid_ip.get(slid, "0.0.0.0"))
        dst = ip_bytes(self._lid_ip.get(dlid, "0.0.0.0"))
        return Decoded(src, dst, 3 if transport[4] & 0x80 else 0, transport, ok)


def framing_from_dict(d: Mapping[str, object]) -> IbFraming:
    """An :class:`IbFraming` from its :meth:`IbFraming.to_dict` form (UserError if malformed)."""
    try:
        eps = d["endpoints"]
        assert isinstance(eps, Mapping) and d.get("kind") == IbFraming.name
        endpoints = {
            str(ip): IbEndpoint(str(v[0]), tuple(int(x) for x in v[1])) for ip, v in eps.items()
        }
        return IbFraming(endpoints, int(d.get("data_vls", 1)), int(d.get("sl_of_dscp", 3)))  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError, IndexError, AssertionError):
        raise UserError(f"bad IB framing config: {str(d)[:200]}") from None
