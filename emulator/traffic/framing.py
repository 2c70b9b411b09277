"""Link/network framing of RoCE transport packets: a pluggable strategy (RoCEv2 now, IB later).

A framing wraps ``BTH | ext headers | payload`` into a wire frame and unwraps received
frames. RoCEv2::

    Ether(dst=gateway, src=nic, 0x0800) / IPv4(tos=DSCP<<2|ECN, ttl 64, DF, id 0, proto 17)
      / UDP(sport=f(QPNs), dport=4791, checksum 0) / BTH ... payload / ICRC

An InfiniBand framing (LRH / [GRH] / BTH ... / ICRC / VCRC) would implement the same Protocol.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from emulator.errors import UserError
from emulator.traffic.qos import tos_byte
from emulator.traffic.roce import ICRC_LEN, icrc_ipv4
from emulator.vocab import IP_PROTO_UDP, UDP_PORT_ROCEV2, EtherType

_IPV4_ETH = EtherType.IPV4.to_bytes(2, "big")
_IP_DF = 0x4000
_DEFAULT_TTL = 64
_IP_HDR = struct.Struct("!BBHHHBBH4s4s")
_UDP_HDR = struct.Struct("!HHHH")


class Decoded(NamedTuple):
    """A received frame's network fields and its transport bytes (ICRC stripped)."""

    src: bytes  # network source address (4 bytes for IPv4)
    dst: bytes
    tos: int
    transport: bytes
    icrc_ok: bool | None


class Framing(Protocol):
    """How transport packets are put on and taken off the wire."""

    name: str
    #: framing bytes around the transport bytes (headers + ICRC), excluding FCS/preamble
    overhead_bytes: int

    def make_path(
        self, src_mac: str, dst_mac: str, src: str, dst: str, sport: int, dscp: int, ecn: int
    ) -> object:
        """A reusable per-QP header template."""
        ...

    def encode(self, path: object, transport: bytes) -> bytes:
        """The wire frame carrying ``transport`` along ``path``."""
        ...

    def decode(self, frame: bytes, verify_icrc: bool = False) -> Decoded | None:
        """Unwrap a frame addressed to this transport; None for anything else."""
        ...

    def addressed_to(self, frame: bytes, local: bytes) -> bool:
        """True when ``frame``'s link destination is ``local`` (a MAC for Ethernet)."""
        ...


def mac_bytes(mac: str) -> bytes:
    """``aa:bb:cc:dd:ee:ff`` as 6 bytes; UserError if malformed."""
    parts = mac.split(":")
    try:
        raw = bytes(int(p, 16) for p in parts)
    except ValueError:
        raw = b""
    if len(parts) != 6 or len(raw) != 6:
        raise UserError(f"bad MAC address {mac!r} (want aa:bb:cc:dd:ee:ff)")
    return raw


def ip_bytes(ip: str) -> bytes:
    """Dotted IPv4 address as 4 bytes; UserError if malformed."""
    try:
        return ipaddress.IPv4Address(ip).packed
    except ValueError as exc:
        raise UserError(f"bad IPv4 address {ip!r}: {exc}") from None


@dataclass(frozen=True)
class RocePath:
    """Precomputed header pieces of one QP's frames."""

    eth: bytes
    ip_prefix: bytes  # version/ihl, tos
    ip_mid: bytes  # id, flags, ttl, proto
    ip_addrs: bytes
    csum_base: int
    sport: int
    #: transport length -> (Ethernet + IPv4 + UDP header bytes, CRC-32 state of the ICRC
    #: after those headers, masked): filled by ``framing_fast.TemplateRoceV2Framing``
    templates: dict[int, tuple[bytes, int]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )


def ip_udp_headers(path: RocePath, transport_len: int) -> tuple[bytes, bytes]:
    """The IPv4 header (checksum filled in) and UDP header of a frame carrying
    ``transport_len`` transport bytes along ``path``."""
    udp_len = 8 + transport_len + ICRC_LEN
    total = 20 + udp_len
    s = path.csum_base + total
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    ip = (
        path.ip_prefix
        + total.to_bytes(2, "big")
        + path.ip_mid
        + ((~s) & 0xFFFF).to_bytes(2, "big")
        + path.ip_addrs
    )
    return ip, _UDP_HDR.pack(path.sport, UDP_PORT_ROCEV2, udp_len, 0)


class RoceV2Framing:
    """RoCEv2: Ethernet / IPv4 / UDP 4791 / BTH ... / ICRC."""

    name = "rocev2"
    overhead_bytes = 14 + 20 + 8 + ICRC_LEN

    def make_path(
        self, src_mac: str, dst_mac: str, src: str, dst: str, sport: int, dscp: int, ecn: int
    ) -> RocePath:
        """Header template for frames from ``src`` to ``dst`` with the given UDP sport/DSCP."""
        eth = mac_bytes(dst_mac) + mac_bytes(src_mac) + _IPV4_ETH
        tos = tos_byte(dscp, ecn)
        addrs = ip_bytes(src) + ip_bytes(dst)
        words = (0x4500 | tos, 0, _IP_DF, (_DEFAULT_TTL << 8) | IP_PROTO_UDP)
        s = sum(words) + sum(struct.unpack("!4H", addrs))
        return RocePath(
            eth,
            bytes((0x45, tos)),
            struct.pack("!HHBB", 0, _IP_DF, _DEFAULT_TTL, IP_PROTO_UDP),
            addrs,
            s,
            sport,
        )

    def encode(self, path: object, transport: bytes) -> bytes:
        """Ethernet frame with IPv4 checksum and ICRC filled in."""
        assert isinstance(path, RocePath)
        ip, udp = ip_udp_headers(path, len(transport))
        return b"".join((path.eth, ip, udp, transport, icrc_ipv4(ip, udp, transport)))

    def addressed_to(self, frame: bytes, local: bytes) -> bool:
        """Destination MAC check."""
        return frame[0:6] == local

    def decode(self, frame: bytes, verify_icrc: bool = False) -> Decoded | None:
        """Transport bytes of a RoCEv2 frame, or None if the frame is not RoCEv2/IPv4."""
        if len(frame) < 14 + 20 + 8 + 12 + ICRC_LEN or frame[12:14] != _IPV4_ETH:
            return None
        ihl = (frame[14] & 0x0F) * 4
        if frame[23] != IP_PROTO_UDP or ihl < 20:
            return None
        l4 = 14 + ihl
        if int.from_bytes(frame[l4 + 2 : l4 + 4], "big") != UDP_PORT_ROCEV2:
            return None
        end = 14 + int.from_bytes(frame[16:18], "big")
        if end > len(frame) or end < l4 + 8 + 12 + ICRC_LEN:
            return None
        transport = frame[l4 + 8 : end - ICRC_LEN]
        ok = None
        if verify_icrc:
            ok = icrc_ipv4(frame[14:l4], frame[l4 : l4 + 8], transport) == frame[end - 4 : end]
        return Decoded(frame[26:30], frame[30:34], frame[15], transport, ok)
