"""Benchmark the emulated RNIC: median frames/s of the encode + decode hot path and of a
two-RNIC transfer in virtual time (RNIC work only: the "wire" is a plain list hand-over),
the transfer with the base ``Rnic`` and with ``FastRnic`` (speed-up ``FASTNIC``),
interleaved, and their ratio.

Usage: ``python benchmarks/bench_rnic.py [--repeat 5]``. Prints medians.
"""

from __future__ import annotations

import argparse
import statistics
import time

from emulator.traffic import opcodes as op
from emulator.traffic.connection import ConnSpec, connect_pair
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.traffic.rnic_fast import FastRnic
from emulator.traffic.roce import decode_transport, encode_transport


def bench_codec(n: int = 20_000) -> float:
    """Frames/s of build (1 KiB payload, with ICRC) + parse (with ICRC check)."""
    fr = RoceV2Framing()
    path = fr.make_path(
        "02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2", 0xC001, 26, 0
    )
    payload = bytes(1024)
    t0 = time.perf_counter()
    for psn in range(n):
        f = fr.encode(path, encode_transport(op.RC_RDMA_WRITE_MIDDLE, 0x101, psn, payload))
        d = fr.decode(f, verify_icrc=True)
        decode_transport(d.transport)
    return n / (time.perf_counter() - t0)


def bench_transfer(nbytes: int = 8 << 20, num_qps: int = 4, fast: bool = False) -> float:
    """Frames/s (both directions) of a CTS-admitted transfer between two RNICs
    (``fast``: :class:`FastRnic`s)."""
    cfg = RnicConfig(link_bps=100e9)
    cls = FastRnic if fast else Rnic
    a = cls("02:00:00:00:00:01", "10.0.0.1", "02:00:00:00:00:02", config=cfg)
    b = cls("02:00:00:00:00:02", "10.0.0.2", "02:00:00:00:00:01", config=cfg)
    ca, cb = connect_pair(a, b, ConnSpec(0, a.ip, b.ip, num_qps))
    ca.send(nbytes, 1, 0)
    cb.recv(nbytes, 1, 0)
    delay = 2_000
    inflight: list[tuple[int, object, bytes]] = []
    now = 0
    t0 = time.perf_counter()
    frames = 0
    while not a.completions and frames < 10**7:
        for nic, peer in ((a, b), (b, a)):
            f = nic.poll(now)
            if f is not None:
                inflight.append((now + delay, peer, f))
                frames += 1
        inflight.sort(key=lambda x: x[0])
        while inflight and inflight[0][0] <= now:
            _, peer, f = inflight.pop(0)
            peer.on_frame(f, now)  # type: ignore[attr-defined]
        cands = [w for w in (a.next_wakeup(), b.next_wakeup()) if w is not None]
        if inflight:
            cands.append(inflight[0][0])
        now = max(now + 1, min(cands)) if cands else now + 1
    return frames / (time.perf_counter() - t0)


def main() -> None:
    """Run each benchmark ``--repeat`` times and print medians."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    codec = statistics.median(bench_codec() for _ in range(args.repeat))
    runs: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeat):
        for which in (False, True):
            runs[which].append(bench_transfer(fast=which))
    base, fast = statistics.median(runs[False]), statistics.median(runs[True])
    print(f"codec encode+decode (1 KiB, ICRC both ways): {codec:,.0f} frames/s")
    print(f"two-RNIC transfer, 4 QPs, CTS admission:     {base:,.0f} frames/s")
    print(f"  the same with FastRnic (FASTNIC):          {fast:,.0f} frames/s ({fast / base:.2f}x)")


if __name__ == "__main__":
    main()
