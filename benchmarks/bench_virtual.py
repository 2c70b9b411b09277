"""Benchmark the virtual-time runtime: packet hops per wall second, start-up, memory.

A packet hop is one frame put on one link (host->leaf, leaf->spine, ...); every hop that
enters a switch runs the P4 pipeline (p4/roce_fabric.p4 on the built-in target), which is
the hot path. Cases (median of ``--repeat`` runs each):

* ``4spine fat``: two_rack_4spine, 4 fat flows of 1 MiB between the racks, E-ECMP 16 QPs
* ``zone ring``: ai_zone_small, ring AllReduce of 1 MiB over 8 hosts in 8 racks
* ``256 hosts``: 16 racks x 16 GPUs, 8 spines (TopologySpec built here), 128 fat flows
  of 64 KiB from rack r to rack r+8: start-up (switches programmed) and run
* ``flagship``: scenarios/fat_flow_collision.yaml, its four variants (lb x qps) through
  ``run_scenario`` (compile, deploy, run, results): CPU seconds for all four
* ``--cli``: ``fabemu run`` of the flagship's four variants, each a new process (CPU s of
  the children; ``--tree DIR``: another checkout's code; ``--vs DIR``: that checkout
  against ``--tree``, both with their defaults, taking turns; bytecode compiled first
  unless ``--no-bytecode``); ``benchmarks/run_phases.py`` splits one such run into phases
* ``--big``: 1,024 hosts (32 racks x 32 GPUs, 16 spines), 512 fat flows of 16 KiB, once,
  for its max RSS (run it alone: RSS is the process's peak)

Every case runs ``--repeat`` times with every speed-up off (``FABEMU_FAST=0``, the
unoptimised path) and with the defaults (:mod:`emulator.speedups`: specialised table
nodes, lazy sampler, ...), interleaved, in this one process; the table shows medians and
the ratio fast / unoptimised hops per CPU second (CPU time of this process, less disturbed
than wall time by other load on a shared machine). ``--flowcache`` also turns the decision
cache on in the fast runs, ``--replay`` the whole-switch replay (target/framereplay.py).

    .venv/bin/python benchmarks/bench_virtual.py [--repeat 3] [--quick] [--big] [--replay]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from emulator import native, speedups
from emulator.control import FabricConfig, FabricController
from emulator.measure.results import RunMeta
from emulator.p4c import compile_file
from emulator.plan.spec import RunPlan
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.topology import LinkSpec, ResolvedTopology, TopologySpec, load_clos, resolve
from emulator.traffic.rnic_process import rnic_config_from_dict

PROGRAM = Path(__file__).resolve().parents[1] / "p4" / "roce_fabric.p4"
META = RunMeta(scenario="bench", runtime="virtual", target="builtin")


def big_spec() -> TopologySpec:
    """16 racks x 16 GPUs = 256 hosts, 8 spines, non-blocking leaves, 10 Mb/s links
    (400 Gb/s scaled by 1/40000, as in topologies/)."""
    link = LinkSpec(rate_bps=10_000_000, delay_ns=1000)
    return TopologySpec(
        name="bench_256",
        racks=16,
        gpus_per_rack=16,
        spines=8,
        uplinks_per_leaf=16,
        radix=64,
        host_link=link,
        fabric_link=link,
    )


def make_config(
    topo: ResolvedTopology,
    prog: dict[str, Any],
    rnic: dict[str, Any] | None = None,
    queue_depth: int | None = None,
) -> RunPlan:
    """Every switch runs roce_fabric.p4 with the controller's operations (E-ECMP).

    ``queue_depth``: packets per queue, for fabrics whose derived PFC headroom does not fit
    the target's default depth (radix-64 leaves)."""
    ctl = FabricController(topo, FabricConfig(lb_mode="eecmp", queue_depth=queue_depth))
    return RunPlan(
        topo,
        {s.name: prog for s in topo.switches},
        {s.name: ctl.switch_ops(s.name) for s in topo.switches},
        rnic=rnic_config_from_dict(rnic or {}),
    )


def one_run(cfg: RunPlan, workload: dict[str, Any]) -> dict[str, float]:
    """Start, run to completion, collect; timings and engine figures."""
    t0 = time.perf_counter()
    rt = VirtualRuntime(cfg)
    rt.start()
    rt.add_workload(workload)
    t1 = time.perf_counter()
    c1 = time.process_time()
    done = rt.run(60 * 10**9)
    cpu = time.process_time() - c1
    t2 = time.perf_counter()
    result = rt.result(META)
    t3 = time.perf_counter()
    if not done:
        raise SystemExit(f"workload did not finish: {result.meta.incomplete_reason}")
    s = rt.stats()
    return {
        "start_s": t1 - t0,
        "run_s": t2 - t1,
        "result_s": t3 - t2,
        "hops": s["hops"],
        "events": s["events"],
        "hops_per_s": s["hops"] / (t2 - t1),
        "hops_per_cpu_s": s["hops"] / max(cpu, 1e-9),
        "virtual_ms": s["end_ns"] / 1e6,
        "speedup": (s["end_ns"] / 1e9) / (t2 - t1),
    }


def cases(prog: dict[str, Any], quick: bool) -> list[tuple[str, RunPlan, dict[str, Any]]]:
    """(label, config, workload) of every benchmark case."""
    out = []
    four = resolve(load_clos("two_rack_4spine"))
    out.append(
        (
            "4spine fat 4x1MiB",
            make_config(four, prog, rnic={"chunk_bytes": 65536}),
            {
                "kind": "fat_flows",
                "pairs": [[f"h{i}", f"h{i + 4}"] for i in range(4)],
                "size_bytes": 1 << 20,
                "num_qps": 16,
            },
        )
    )
    zone = resolve(load_clos("ai_zone_small"))
    out.append(
        (
            "zone ring 8x1MiB",
            make_config(zone, prog),
            {
                "kind": "allreduce",
                "hosts": [f"h{4 * r}" for r in range(8)],
                "size_bytes": 1 << 20,
                "algorithm": "ring",
            },
        )
    )
    if not quick:
        big = resolve(big_spec())
        pairs = [[f"h{i}", f"h{i + 128}"] for i in range(128)]
        out.append(
            (
                "256 hosts fat 128x64KiB",
                make_config(big, prog, queue_depth=256),
                {"kind": "fat_flows", "pairs": pairs, "size_bytes": 65536},
            )
        )
    return out


def big_case(prog: dict[str, Any]) -> tuple[str, RunPlan, dict[str, Any]]:
    """1,024 hosts: 32 racks x 32 GPUs, 16 spines; 512 fat flows of 16 KiB."""
    link = LinkSpec(rate_bps=10_000_000, delay_ns=1000)
    spec = TopologySpec(
        name="bench_1024",
        racks=32,
        gpus_per_rack=32,
        spines=16,
        uplinks_per_leaf=32,
        radix=64,
        host_link=link,
        fabric_link=link,
    )
    pairs = [[f"h{i}", f"h{i + 512}"] for i in range(512)]
    work = {"kind": "fat_flows", "pairs": pairs, "size_bytes": 16384}
    return "1024 hosts fat 512x16KiB", make_config(resolve(spec), prog, queue_depth=512), work


FLOWCACHE = False  # --flowcache: the decision cache on in the fast runs too
REPLAY = False  # --replay: the whole-switch replay on in the fast runs too


def set_mode(mode: str) -> None:
    """Mode "0": every speed-up off (the unoptimised path); "1": the defaults."""
    for key in speedups.environment(False):
        os.environ.pop(key, None)
    if mode == "0":
        os.environ[speedups.ALL_OFF] = "0"
    else:
        os.environ.pop(speedups.ALL_OFF, None)
        if FLOWCACHE:
            os.environ["FABEMU_FLOWCACHE"] = "1"
        if REPLAY:
            os.environ["FABEMU_REPLAY"] = "1"


def measure(cfg: RunPlan, work: dict[str, Any], repeat: int) -> dict[str, list[dict[str, float]]]:
    """``repeat`` runs with the speed-ups off and on, interleaved."""
    runs: dict[str, list[dict[str, float]]] = {"0": [], "1": []}
    for _ in range(repeat):
        for mode in ("0", "1"):
            set_mode(mode)
            runs[mode].append(one_run(cfg, work))
    return runs


FLAGSHIP = PROGRAM.parents[1] / "scenarios" / "fat_flow_collision.yaml"
FLAGSHIP_VARIANTS = [
    {"switch.lb": lb, "workload.num_qps": q} for lb in ("ecmp", "eecmp") for q in (1, 16)
]


def flagship(repeat: int) -> None:
    """CPU seconds of the flagship's four variants, speed-ups off and on, interleaved."""
    import tempfile

    from emulator.scenario.runner import run_scenario

    cpu: dict[str, list[float]] = {"0": [], "1": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeat):
            for mode in ("0", "1"):
                set_mode(mode)
                c0 = time.process_time()
                for i, ov in enumerate(FLAGSHIP_VARIANTS):
                    out = Path(tmp) / f"{r}-{mode}-{i}"
                    run_scenario(FLAGSHIP, ov, out=out, report=False)
                cpu[mode].append(time.process_time() - c0)
    off, on = statistics.median(cpu["0"]), statistics.median(cpu["1"])
    print(
        f"{'flagship, 4 variants':<26}   off {off:8.2f} CPU s   on {on:8.2f} CPU s   ratio {off / on:.2f}"
    )


def flagship_cli(repeat: int, tree: Path, bytecode: bool = True, vs: Path | None = None) -> None:
    """CPU seconds (children) of ``fabemu run`` of the flagship's four variants, each a new
    process as a user runs it (imports, compile, deploy, run, result.json and the HTML
    report), speed-ups off and on, interleaved; ``tree``: the checkout whose code runs.

    ``vs``: instead of off and on, ``tree`` and the checkout ``vs`` with their defaults
    (each its own compiled modules, if built), taking turns.
    ``bytecode``: compile the trees' modules to ``__pycache__`` first, as a user's first run
    (or pip) does; without it, under ``PYTHONDONTWRITEBYTECODE`` every run recompiles them."""
    import subprocess
    import tempfile

    arms = (
        [("off", tree, "0"), ("on", tree, "1")]
        if vs is None
        else [(str(vs), vs, "1"), (str(tree), tree, "1")]
    )
    if bytecode:
        for t in {a[1] for a in arms}:
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(t / "emulator")], check=True
            )
    cpu: dict[str, list[float]] = {label: [] for label, _, _ in arms}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeat):
            for label, code, mode in arms:
                set_mode(mode)
                # the compile cache starts empty for each tree: its first run fills it
                env = {
                    "PYTHONPATH": str(code),
                    "FABEMU_STATE_DIR": f"{tmp}/s",
                    "FABEMU_CACHE_DIR": f"{tmp}/cache-{arms.index((label, code, mode))}",
                }
                mode_env = {**os.environ, **env}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                for i, ov in enumerate(FLAGSHIP_VARIANTS):
                    sets = [a for k, v in ov.items() for a in ("--set", f"{k}={v}")]
                    out = f"{tmp}/{r}-{mode}-{i}-{arms.index((label, code, mode))}"
                    cmd = [sys.executable, "-m", "emulator", "run", str(FLAGSHIP), "--out", out]
                    subprocess.run(  # cwd: not this checkout (``-m`` imports from cwd first)
                        [*cmd, *sets], env=mode_env, check=True, capture_output=True, cwd=tmp
                    )
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                cpu[label].append(used)
                print(f"  round {r + 1}: {label}: {used:.2f} CPU s", flush=True)
    (a, _, _), (b, _, _) = arms
    ma, mb = statistics.median(cpu[a]), statistics.median(cpu[b])
    pairs = ", ".join(f"{x / y:.2f}" for x, y in zip(cpu[a], cpu[b], strict=True))
    print(f"fabemu run flagship x4: {a} {ma:.2f} CPU s, {b} {mb:.2f} CPU s (medians)")
    print(f"ratio per round ({a} / {b}): {pairs} (median of medians {ma / mb:.2f})")


def main() -> int:
    """Run every case ``--repeat`` times each way; print medians and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="skip the 256-host fabric")
    ap.add_argument("--big", action="store_true", help="only the 1,024-host case, for RSS")
    ap.add_argument("--flagship", action="store_true", help="only the flagship scenario")
    ap.add_argument("--flowcache", action="store_true", help="decision cache on when fast")
    ap.add_argument("--replay", action="store_true", help="whole-switch replay on when fast")
    ap.add_argument("--cli", action="store_true", help="only the flagship via `fabemu run`")
    ap.add_argument("--tree", type=Path, default=PROGRAM.parents[1], help="code for --cli")
    ap.add_argument(
        "--no-bytecode", action="store_true", help="--cli: don't compile the tree's .pyc first"
    )
    ap.add_argument("--vs", type=Path, help="--cli: compare --tree with this checkout instead")
    args = ap.parse_args()
    global FLOWCACHE, REPLAY
    FLOWCACHE, REPLAY = args.flowcache, args.replay
    if args.flagship:
        flagship(args.repeat)
        return 0
    if args.cli:
        vs = args.vs.resolve() if args.vs else None
        flagship_cli(args.repeat, args.tree.resolve(), not args.no_bytecode, vs)
        return 0
    prog = compile_file(str(PROGRAM))
    st = native.status()  # compiled modules or not: benchmarks/bench_native.py compares
    print(f"data path: {st.state} ({st.detail})")
    print(
        f"{'case':<26}{'fast':>6}{'start s':>9}{'run s':>8}{'hops':>9}{'hops/s':>9}"
        f"{'hops/cpu-s':>11}{'virt ms':>9}{'x real':>8}{'ratio':>7}"
    )
    todo = [big_case(prog)] if args.big else cases(prog, args.quick)
    for label, cfg, work in todo:
        runs = measure(cfg, work, 1 if args.big else args.repeat)
        base = statistics.median(r["hops_per_cpu_s"] for r in runs["0"])
        for mode, name in (("0", "off"), ("1", "on")):

            def med(key: str, rs: list[dict[str, float]] = runs[mode]) -> float:
                return statistics.median(r[key] for r in rs)

            print(
                f"{label:<26}{name:>6}{med('start_s'):>9.2f}{med('run_s'):>8.2f}"
                f"{med('hops'):>9.0f}{med('hops_per_s'):>9.0f}{med('hops_per_cpu_s'):>11.0f}"
                f"{med('virtual_ms'):>9.1f}{med('speedup'):>8.2f}"
                f"{med('hops_per_cpu_s') / base:>7.2f}"
            )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"max RSS of this process: {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
