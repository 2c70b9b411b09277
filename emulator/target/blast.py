"""Bounded raw-Ethernet traffic between two interfaces, for root tests and benchmarks.

    python -m emulator.target.blast --tx IF_A --rx IF_B --count 1000 --size 1024

Sends ``count`` frames (EtherType 0x88B5, local experimental; sequence number in the
payload) on ``--tx``, counts the ones arriving on ``--rx``, and prints one JSON object:
sent, received, in_order, rx_pps (between the first and last arrival). Bounded by
``--count`` and ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import time
from collections.abc import Sequence

ETHERTYPE = 0x88B5
MAGIC = b"FABEMU"
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def make_frame(seq: int, size: int) -> bytes:
    """A ``size``-byte test frame carrying ``seq``."""
    head = bytes.fromhex("020000000002020000000001") + struct.pack("!H", ETHERTYPE)
    body = MAGIC + struct.pack("!Q", seq)
    return (head + body).ljust(max(size, 60), b"\x00")


def _open(ifname: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * 1024 * 1024)
    s.setblocking(False)
    return s


def blast(
    tx: str, rx: str, count: int, size: int, rate_pps: float = 0.0, timeout: float = 30.0
) -> dict[str, object]:
    """Send ``count`` frames on ``tx`` and count arrivals on ``rx``; returns the figures."""
    rs, ts = _open(rx), _open(tx)
    seqs: list[int] = []
    first = last = 0.0

    def drain() -> None:
        nonlocal first, last
        while True:
            try:
                data, addr = rs.recvfrom(65535)
            except BlockingIOError:
                return
            if addr[2] == PACKET_OUTGOING or data[12:14] != b"\x88\xb5" or data[14:20] != MAGIC:
                continue
            now = time.perf_counter()
            if not seqs:
                first = now
            last = now
            seqs.append(struct.unpack_from("!Q", data, 20)[0])

    start = time.perf_counter()
    deadline = start + timeout
    gap = 1.0 / rate_pps if rate_pps > 0 else 0.0
    sent = 0
    with rs, ts:
        while sent < count and time.perf_counter() < deadline:
            if gap and time.perf_counter() < start + sent * gap:
                drain()
                continue
            try:
                ts.send(make_frame(sent, size))
                sent += 1
            except BlockingIOError:
                pass
            if sent % 32 == 0:
                drain()
        idle_until = time.perf_counter() + 1.0
        while len(seqs) < sent and time.perf_counter() < min(deadline, idle_until):
            before = len(seqs)
            drain()
            if len(seqs) > before:
                idle_until = time.perf_counter() + 1.0
            time.sleep(0.001)
    span = last - first
    return {
        "sent": sent,
        "received": len(seqs),
        "in_order": seqs == sorted(seqs),
        "rx_pps": (len(seqs) - 1) / span if span > 0 else 0.0,
        "elapsed_s": time.perf_counter() - start,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print the blast figures as JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tx", required=True)
    p.add_argument("--rx", required=True)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--rate", type=float, default=0.0, help="frames/s, 0 = as fast as possible")
    p.add_argument("--timeout", type=float, default=30.0)
    a = p.parse_args(argv)
    res = blast(a.tx, a.rx, min(a.count, 10_000_000), a.size, a.rate, min(a.timeout, 600.0))
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
