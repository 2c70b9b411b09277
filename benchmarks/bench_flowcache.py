"""Benchmark the decision cache alone.

Default: ``Switch.process`` on a leaf running p4/roce_fabric.p4 (E-ECMP), 4,000 RoCEv2
frames over 16 flows, cache off and on, interleaved; median packets per CPU second and
the ratio (5 repetitions).

``--costs``: one pipeline run, three ways, on the pipeline inputs of a real run (a fifth
of the ingress and egress runs of the flagship, E-ECMP 16 QPs, captured): a cache hit,
a miss (record after a flush) and the plain pipeline; CPU microseconds per run, median of 3.

    .venv/bin/python benchmarks/bench_flowcache.py [--costs]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench_roce_program import PROGRAM, frame

from emulator.control import FabricConfig, FabricController
from emulator.p4c import compile_file
from emulator.target.switch import Switch
from emulator.topology import load_clos, resolve


def costs() -> None:
    """Per-run CPU cost of a hit, a miss and the plain pipeline, on captured inputs."""
    import os
    import random
    import tempfile

    from emulator.scenario.runner import run_scenario
    from emulator.target import flowcache as fc
    from emulator.target.pipeline import run as plain

    caps: list[tuple[Any, list[int], Any]] = []
    real = fc.FlowCache.run
    pick = random.Random(1)

    def capture(cache: Any, f: list[int], p: Any) -> None:
        if pick.random() < 0.2:
            caps.append((cache, f.copy(), p))
        real(cache, f, p)

    fc.FlowCache.run = capture  # type: ignore[method-assign]
    os.environ["FABEMU_FLOWCACHE"] = "1"
    scenario = PROGRAM.parents[1] / "scenarios" / "fat_flow_collision.yaml"
    with tempfile.TemporaryDirectory() as tmp:
        overrides = {"switch.lb": "eecmp", "workload.num_qps": 16}
        run_scenario(scenario, overrides, out=tmp, report=False)
    fc.FlowCache.run = real  # type: ignore[method-assign]
    caches = list({id(c): c for c, _, _ in caps}.values())
    for c in caches:
        c._bypass = 0  # measure hits even where the run had stopped caching

    def per_run(body: Any, flush: bool = False) -> float:
        times = []
        for _ in range(3):
            if flush:
                for c in caches:
                    c.flush()
            work = [(c, f.copy(), p) for c, f, p in caps]
            c0 = time.process_time()
            for c, f, p in work:
                body(c, f, p)
            times.append((time.process_time() - c0) / len(work) * 1e6)
        return statistics.median(times)

    miss = per_run(lambda c, f, p: c._record(f, p), flush=True)
    hit = per_run(lambda c, f, p: c.run(f, p))
    base = per_run(lambda c, f, p: plain(c.start, f, p))
    print(f"{len(caps)} pipeline runs: hit {hit:.1f} us, miss {miss:.1f} us, plain {base:.1f} us")


def main() -> int:
    """Print packets per CPU second with the cache off and on (or --costs)."""
    if "--costs" in sys.argv:
        costs()
        return 0
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
