"""Benchmark the built-in target: median packets/s through an L3 LPM + ECMP selector program.

1 KiB RoCEv2 frames (Ethernet/IPv4/UDP 4791/BTH/payload), 256 flows, 64 LPM routes each
pointing at an 8-member ECMP group; in-process ``Switch.process`` (parse, ingress, deparse,
checksum update), one core. The program is ``benchmarks/l3_ecmp.p4`` compiled by
``emulator.p4c`` and, for comparison, the hand-written ``tests/target/programs/l3_ecmp.json``. Wall-clock rates suffer when the machine is shared, so the
rate per CPU-second is printed too. Usage: ``python benchmarks/bench_target.py [--json PROG.json]``.
"""

from __future__ import annotations

import argparse
import statistics
import struct
import time
from pathlib import Path

from emulator.target.switch import Switch

HERE = Path(__file__).resolve().parent
DEFAULT_JSON = HERE.parent / "tests/target/programs/l3_ecmp.json"
DEFAULT_P4 = HERE / "l3_ecmp.p4"


def _csum(data: bytes) -> int:
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def rocev2_frame(src: int, dst: int, sport: int, size: int = 1024) -> bytes:
    """A RoCEv2 (UDP 4791) frame of ``size`` bytes with a BTH and zero payload."""
    bth = struct.pack("!BBHII", 0x0A, 0x40, 0xFFFF, 0x000012, 0x80000001)
    udp_len = size - 14 - 20
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0x02,
        size - 14,
        1,
        0x4000,
        64,
        17,
        0,
        src.to_bytes(4, "big"),
        dst.to_bytes(4, "big"),
    )
    ip = ip[:10] + _csum(ip).to_bytes(2, "big") + ip[12:]
    udp = struct.pack("!HHHH", sport, 4791, udp_len, 0)
    eth = bytes.fromhex("0200000000010200000000020800")
    return eth + ip + udp + bth + bytes(size - 14 - 20 - 8 - len(bth))


def build_switch(program: Path | dict) -> Switch:
    """The reference switch with 64 routes and an 8-way ECMP group."""
    sw = Switch(program if isinstance(program, dict) else str(program))
    for port in range(1, 9):
        sw.add_port(port)
        sw.cli(f"act_prof_create_member ecmp_sel set_nhop 00:00:00:00:01:{port:02x} {port}")
    sw.cli("act_prof_create_group ecmp_sel")
    for m in range(8):
        sw.cli(f"act_prof_add_member_to_group ecmp_sel {m} 0")
    for r in range(64):
        sw.cli(f"table_indirect_add_with_group ecmp 10.{r}.0.0/16 => 0")
    return sw


def measure(name: str, program: Path | dict, packets: int, runs: int) -> None:
    """Print the median rate of ``runs`` runs of ``packets`` packets through ``program``."""
    sw = build_switch(program)
    frames = [
        rocev2_frame(0x0B000001 + i, 0x0A000001 + (i % 64) * 0x10000, 49152 + i) for i in range(256)
    ]
    assert sw.process(1, frames[0]), "the reference program must forward the test frame"
    rates, cpu_rates = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(packets):
            sw.process(1, frames[i & 255])
        rates.append(packets / (time.perf_counter() - t0))
        cpu_rates.append(packets / (time.process_time() - c0))
    print(
        f"{name}: median {statistics.median(rates):,.0f} packets/s "
        f"(min {min(rates):,.0f}, max {max(rates):,.0f}); "
        f"{statistics.median(cpu_rates):,.0f} packets per CPU-second"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON)
    ap.add_argument("--p4", type=Path, default=DEFAULT_P4)
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print(f"bench_target: 1024-byte RoCEv2 frames, {args.packets} pkts x {args.runs} runs")
    try:
        from emulator.p4c import compile_file

        measure(
            f"{args.p4.name} (emulator.p4c)", compile_file(str(args.p4)), args.packets, args.runs
        )
    except ImportError:
        print(f"{args.p4.name}: skipped, emulator.p4c is not available")
    measure(f"{args.json.name} (hand-written)", args.json, args.packets, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
