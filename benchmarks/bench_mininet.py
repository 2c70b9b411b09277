"""Bring-up time and memory of the Mininet runtime: 8 racks x 4 GPUs, 4 spines (root).

    sudo .venv/bin/python benchmarks/bench_mininet.py [--runs 3] [--target fabemu]

12 switches (built-in target running p4/roce_fabric.p4, programmed by emulator.control)
and 32 hosts. Prints the median bring-up time (build + switch processes ready + programmed
+ hosts configured; target < 60 s), teardown time, and the resident memory of the switch
processes and host shells. A cross-rack ping checks the fabric is really up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from emulator.control import FabricController
from emulator.p4c import compile_file
from emulator.runtime.mininet.fabric import MininetFabric
from emulator.topology import resolve
from emulator.topology.spec import TopologySpec

ROOT = Path(__file__).resolve().parent.parent


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (0 if gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def one_run(prog: Path, target: str) -> dict[str, float]:
    """Bring the fabric up and down once; the figures."""
    spec = TopologySpec("bench_8x4_4spine", racks=8, gpus_per_rack=4, spines=4,
                        uplinks_per_leaf=4)  # fmt: skip
    topo = resolve(spec)
    ctl = FabricController(topo)
    fab = MininetFabric(topo, prog, {n: ctl.command_file(n) for n in ctl.switch_names},
                        target=target)  # fmt: skip
    t0 = time.perf_counter()
    fab.start()
    try:
        up = time.perf_counter() - t0
        ok = fab.ping(topo.hosts[0].name, topo.hosts[-1].name)
        sw_rss = sum(rss_kib(sw.proc.pid) for sw in fab.net.switches if sw.proc)
        host_rss = sum(rss_kib(h.pid) for h in fab.net.hosts)
        runner_rss = rss_kib(os.getpid())
    finally:
        t1 = time.perf_counter()
        fab.stop()
        down = time.perf_counter() - t1
    return {"up_s": up, "down_s": down, "ping_ok": float(ok), "switch_rss_mib": sw_rss / 1024,
            "host_rss_mib": host_rss / 1024, "runner_rss_mib": runner_rss / 1024,
            "switches": len(topo.switches), "hosts": len(topo.hosts)}  # fmt: skip


def main() -> int:
    """Run and print medians."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--target", default="fabemu", choices=["fabemu", "bmv2"])
    a = p.parse_args()
    if os.geteuid() != 0:
        print("needs root (Mininet)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "roce_fabric.json"
        prog.write_text(json.dumps(compile_file(str(ROOT / "p4" / "roce_fabric.p4"))))
        runs = [one_run(prog, a.target) for _ in range(max(1, min(a.runs, 5)))]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"{int(med['switches'])} switches, {int(med['hosts'])} hosts, target {a.target}, "
          f"runs {len(runs)}")  # fmt: skip
    print(f"median bring-up: {med['up_s']:.1f} s (target < 60 s); teardown {med['down_s']:.1f} s")
    print(f"median memory: switches {med['switch_rss_mib']:.0f} MiB, host shells "
          f"{med['host_rss_mib']:.0f} MiB, runner {med['runner_rss_mib']:.0f} MiB")  # fmt: skip
    print(f"cross-rack ping ok in {sum(r['ping_ok'] for r in runs):.0f}/{len(runs)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
