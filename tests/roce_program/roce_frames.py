"""RoCEv2 / PFC frames as bytes, the load-balancing hash the program computes, and the
8:1 incast topology the PFC tests share."""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from pathlib import Path

from emulator.target.hashes import csum16, v1model_hash
from emulator.topology import LinkSpec, TopologySpec

#: the program under test
PROGRAM = Path(__file__).resolve().parents[2] / "p4" / "roce_fabric.p4"
ROCE_PORT = 4791
OP_WRITE_ONLY = 0x0A  # RC RDMA WRITE Only: BTH + RETH
OP_SEND_ONLY = 0x04  # RC SEND Only: BTH


def ip(text: str) -> int:
    """An IPv4 address as an int."""
    return int(ipaddress.IPv4Address(text))


def mac(text: str) -> bytes:
    """A MAC address as 6 bytes."""
    return bytes.fromhex(text.replace(":", ""))


@dataclass(frozen=True)
class Flow:
    """One RoCEv2 flow: addresses, UDP source port, destination QP."""

    src: str
    dst: str
    sport: int
    qp: int

    def key(self) -> list[tuple[int, int]]:
        """The 5-tuple fields the program hashes, as (value, width) pairs."""
        return [(ip(self.src), 32), (ip(self.dst), 32), (17, 8), (self.sport, 16), (ROCE_PORT, 16)]


def lb_hash(flow: Flow, mode: str, algo: str, flowlet_id: int = 0) -> int:
    """meta.lb_hash for ``flow`` in load-balancing ``mode`` (docs/p4-programs.md)."""
    fields = flow.key()
    if mode == "eecmp":
        fields.append((flow.qp, 24))
    elif mode == "flowlet":
        fields.append((flowlet_id, 16))
    return v1model_hash(algo, fields, 0, 65536)


def flowlet_slot(flow: Flow) -> int:
    """Index of the flow's flowlet registers."""
    return v1model_hash("crc16", [*flow.key(), (flow.qp, 24)], 0, 1024)


def roce_frame(
    flow: Flow,
    dmac: str,
    smac: str,
    dscp: int = 26,
    ecn: int = 0,
    ttl: int = 64,
    opcode: int = OP_WRITE_ONLY,
    payload: int = 64,
    psn: int = 0,
) -> bytes:
    """Ethernet / IPv4 / UDP 4791 / BTH [/ RETH] / payload / ICRC."""
    bth = struct.pack("!BBHI", opcode, 0x40, 0xFFFF, flow.qp & 0xFFFFFF)
    bth += struct.pack("!I", psn & 0xFFFFFF)
    reth = struct.pack("!QII", 0x1000, 0x1234, payload) if opcode == OP_WRITE_ONLY else b""
    body = bth + reth + bytes(payload) + bytes(4)
    udp = struct.pack("!HHHH", flow.sport, ROCE_PORT, 8 + len(body), 0)
    total = 20 + len(udp) + len(body)
    hdr = struct.pack(
        "!BBHHHBBHII",
        0x45,
        (dscp << 2) | ecn,
        total,
        0,
        0x4000,
        ttl,
        17,
        0,
        ip(flow.src),
        ip(flow.dst),
    )
    hdr = hdr[:10] + struct.pack("!H", csum16(hdr)) + hdr[12:]
    return mac(dmac) + mac(smac) + b"\x08\x00" + hdr + udp + body


def ipv4_fields(frame: bytes) -> dict[str, int]:
    """A few IPv4 fields of an untagged frame (dscp, ecn, ttl, checksum_ok, qp)."""
    hdr = frame[14:34]
    return {
        "dscp": hdr[1] >> 2,
        "ecn": hdr[1] & 3,
        "ttl": hdr[8],
        "checksum_ok": int(csum16(hdr) == 0),
        "qp": int.from_bytes(frame[14 + 20 + 8 + 5 : 14 + 20 + 8 + 8], "big"),
        "psn": int.from_bytes(frame[14 + 20 + 8 + 9 : 14 + 20 + 8 + 12], "big"),
    }


def pfc_frame(class_enable: int, quanta: dict[int, int], smac: str = "02:00:00:00:00:99") -> bytes:
    """An 802.1Qbb PFC frame, padded to 60 bytes."""
    times = [quanta.get(i, 0) for i in range(8)]
    body = struct.pack("!HH8H", 0x0101, class_enable, *times)
    frame = mac("01:80:c2:00:00:01") + mac(smac) + b"\x88\x08" + body
    return frame + bytes(60 - len(frame))


def parse_pfc(frame: bytes) -> tuple[int, list[int]] | None:
    """(class_enable_vector, [pause_time0..7]) of a PFC frame, else None."""
    if len(frame) < 34 or frame[12:14] != b"\x88\x08" or frame[14:16] != b"\x01\x01":
        return None
    cev, *times = struct.unpack("!H8H", frame[16:34])
    return cev, times


def incast_topology() -> TopologySpec:
    """2 leaves of 9 hosts, 2 spines, 10 Mb/s links: 8 senders into one host make an 8:1 incast."""
    link = LinkSpec(rate_bps=10_000_000, delay_ns=0)
    return TopologySpec(
        name="incast9",
        racks=2,
        gpus_per_rack=9,
        spines=2,
        uplinks_per_leaf=2,
        radix=16,
        host_link=link,
        fabric_link=link,
    )
