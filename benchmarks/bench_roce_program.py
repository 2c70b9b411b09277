"""Benchmark p4/roce_fabric.p4 on the built-in target: median packets/s per LB mode.

A leaf of two_rack_4spine programmed by emulator.control; 2000 RoCEv2 WRITE-only frames
(Ethernet/IPv4/UDP 4791/BTH/RETH, 64 B payload), distinct flows, routed to the other
rack over 4 uplinks with ``Switch.process``; 5 repetitions per mode, one core.
Usage: ``python benchmarks/bench_roce_program.py``.
"""

from __future__ import annotations

import statistics
import struct
import time
from pathlib import Path

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.hashes import csum16
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve

PROGRAM = Path(__file__).resolve().parent.parent / "p4" / "roce_fabric.p4"


def frame(sport: int, qp: int) -> bytes:
    """A RoCEv2 RDMA WRITE-only frame from 10.0.0.1 to 10.0.1.1."""
    body = struct.pack("!BBHII", 0x0A, 0x40, 0xFFFF, qp, 0) + struct.pack("!QII", 0, 0, 64)
    body += bytes(64 + 4)
    udp = struct.pack("!HHHH", sport, 4791, 8 + len(body), 0)
    ip = struct.pack(
        "!BBHHHBBHII", 0x45, 26 << 2, 28 + len(body), 0, 0x4000, 64, 17, 0, 0x0A000001, 0x0A000101
    )
    ip = ip[:10] + struct.pack("!H", csum16(ip)) + ip[12:]
    return bytes.fromhex("02b000000001" + "02a000000000") + b"\x08\x00" + ip + udp + body


def main() -> None:
    """Print the median packets/s of each load-balancing mode."""
    t0 = time.perf_counter()
    program = compile_file(str(PROGRAM))
    print(f"compile: {time.perf_counter() - t0:.2f} s")
    topo = resolve(load_clos("two_rack_4spine"))
    frames = [frame(0xC000 + i, i) for i in range(2000)]
    for mode in ("ecmp", "eecmp", "pinning", "flowlet"):
        rates = []
        for _ in range(5):
            sw = Switch(program, priority_queues=8, port_speed_bps={p: 1e10 for p in range(1, 9)})
            FabricController(topo, FabricConfig(lb_mode=mode)).apply({"rtsw0": sw})
            start = time.perf_counter()
            for f in frames:
                sw.process(1, f)
            rates.append(len(frames) / (time.perf_counter() - start))
        print(f"{mode:8s} median {statistics.median(rates):8.0f} packets/s")


if __name__ == "__main__":
    main()
