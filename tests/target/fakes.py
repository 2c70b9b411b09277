"""Test doubles for the target tests: a minimal FIFO traffic manager and frame builders."""

from __future__ import annotations

import struct
from collections import deque

from emulator.target.tm import Dequeued


class FifoTM:
    """One unlimited FIFO per port; records PFC frames it was shown."""

    def __init__(self, clock):
        self.clock = clock
        self.queues: dict[int, deque] = {}
        self.pfc_seen: list[tuple[int, bytes]] = []
        self.depth_calls: list[tuple] = []
        self.rate_calls: list[tuple] = []
        self.ingress_ports: list[int | None] = []

    def add_port(self, port, speed_bps=10e9):
        self.queues.setdefault(port, deque())

    def enqueue(self, port, priority, item, length, ingress_port=None):
        self.ingress_ports.append(ingress_port)
        q = self.queues[port]
        q.append((item, priority, self.clock(), len(q)))
        return True

    def ready_time(self, port):
        return self.clock() if self.queues.get(port) else None

    def dequeue(self, port):
        q = self.queues.get(port)
        if not q:
            return None
        item, prio, ts, depth = q.popleft()
        now = self.clock()
        return Dequeued(item, prio, ts, depth, len(q), now - ts)

    def depth(self, port, priority=None):
        return len(self.queues.get(port, ()))

    def on_pfc_frame(self, port, frame):
        is_pfc = frame[12:14] == b"\x88\x08"
        if is_pfc:
            self.pfc_seen.append((port, frame))
        return is_pfc

    def set_queue_depth(self, pkts, port=None, priority=None):
        self.depth_calls.append((pkts, port, priority))

    def set_queue_rate(self, pps, port=None, priority=None):
        self.rate_calls.append((pps, port, priority))


def csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4_udp(
    src: int = 0x01020304,
    dst: int = 0x0A010101,
    sport: int = 1234,
    dport: int = 4791,
    payload: bytes = b"",
    ttl: int = 64,
    tos: int = 0,
    eth_dst: bytes = b"\x00" * 6,
    eth_src: bytes = b"\x00\x00\x00\x00\x00\x05",
) -> bytes:
    """An Ethernet/IPv4/UDP frame with a correct IPv4 header checksum."""
    total = 20 + 8 + len(payload)
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        tos,
        total,
        1,
        0,
        ttl,
        17,
        0,
        src.to_bytes(4, "big"),
        dst.to_bytes(4, "big"),
    )
    ip = ip[:10] + csum(ip).to_bytes(2, "big") + ip[12:]
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    return eth_dst + eth_src + b"\x08\x00" + ip + udp + payload
