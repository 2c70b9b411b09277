"""Benchmark the decision cache alone: ``Switch.process`` on a leaf running
p4/roce_fabric.p4 (E-ECMP), 4,000 RoCEv2 frames over 16 flows, cache off and on,
interleaved; median packets per CPU second and the ratio (5 repetitions).

    .venv/bin/python benchmarks/bench_flowcache.py
"""

from __future__ import annotations

import statistics
import time

from bench_roce_program import PROGRAM, frame

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve


def main() -> int:
    """Print packets per CPU second with the cache off and on."""
    program = compile_file(str(PROGRAM))
    topo = resolve(load_clos("two_rack_4spine"))
    frames = [frame(0xC000 + i % 16, i % 16) for i in range(4000)]
    rates: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(5):
        for cache in (False, True):
            ports = {p: 1e10 for p in range(1, 9)}
            sw = Switch(program, priority_queues=8, port_speed_bps=ports, flow_cache=cache)
            FabricController(topo, FabricConfig(lb_mode="eecmp")).apply({"rtsw0": sw})
            c0 = time.process_time()
            for f in frames:
                sw.process(1, f)
            rates[cache].append(len(frames) / (time.process_time() - c0))
    off, on = statistics.median(rates[False]), statistics.median(rates[True])
    print(f"cache off {off:8.0f} packets/CPU-s")
    print(f"cache on  {on:8.0f} packets/CPU-s  ratio {on / off:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
