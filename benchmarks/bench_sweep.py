"""Benchmark sweeps: the same runs serially, on the local process pool and on a local Ray
instance; wall time, runs per minute, and what a 1,000-run sweep would cost.

The runs are the flagship's four variants (lb x qps) times ``--seeds`` seeds, at the
scenario's full length. Ray is started here (``ray.init(num_cpus=--workers)``), so its
start-up is printed apart; on a real cluster it is paid once, not per sweep.

``--memory``: instead, what the driver keeps per finished run, with whole outcomes (as a
``compare`` without seeds gets them) and with slim ones (a ``--seeds`` sweep's): the growth
of its resident memory while it holds them, and their pickled size (what crosses the pipe).

    .venv/bin/python benchmarks/bench_sweep.py [--seeds 2] [--workers 2] [--memory]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from emulator.sweep import LocalPoolExecutor, RunRequest, SerialExecutor
from emulator.sweep.progress import run_all

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "fat_flow_collision.yaml"


def requests(out: Path, seeds: int) -> list[RunRequest]:
    """4 variants x ``seeds`` seeds."""
    return [
        RunRequest(
            f"{lb},{q},{s}",
            str(SCENARIO),
            str(out / f"{lb}-{q}-{s}"),
            {"switch.lb": lb, "workload.num_qps": q, "seed": s},
        )
        for lb in ("ecmp", "eecmp")
        for q in (1, 16)
        for s in range(1, seeds + 1)
    ]


def timed(name: str, executor: object, reqs: list[RunRequest]) -> float:
    """Run the sweep; print and return its wall time."""
    t0 = time.perf_counter()
    done = run_all(executor, reqs)  # type: ignore[arg-type]
    wall = time.perf_counter() - t0
    bad = [d.request.label for d in done if not d.ok]
    per = statistics.median(d.outcome.result.meta.wall_s for d in done if d.outcome)
    print(
        f"{name:<22}{len(reqs):>5} runs {wall:8.1f} s wall {60 * len(reqs) / wall:8.1f} runs/min"
        f"   median run {per:.2f} s{'   FAILED: ' + ','.join(bad) if bad else ''}"
    )
    return wall


def rss_mb() -> float:
    """This process's resident memory now (not its peak), MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def memory(seeds: int, workers: int) -> None:
    """The driver's memory per held outcome, whole and slim (local pool, same runs)."""
    import gc
    import pickle
    from dataclasses import replace

    for slim in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            reqs = [replace(r, slim=slim, report=False) for r in requests(Path(tmp), seeds)]
            gc.collect()
            before = rss_mb()
            done = run_all(LocalPoolExecutor(workers), reqs)
            gc.collect()
            held = rss_mb() - before
            size = statistics.median(len(pickle.dumps(d.outcome)) for d in done if d.outcome)
            print(
                f"{'slim' if slim else 'whole'} outcomes: the driver grew {held:7.1f} MB for "
                f"{len(done)} runs ({held / len(done):.2f} MB each); {size / 1e3:.0f} kB pickled"
            )
            del done


def main() -> int:
    """Serial, local pool and local Ray; then the 1,000-run extrapolation."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--memory", action="store_true", help="the driver's memory per run only")
    args = ap.parse_args()
    if args.memory:
        memory(args.seeds, args.workers)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        c0 = time.process_time()
        serial = timed("serial", SerialExecutor(), requests(root / "s", args.seeds))
        serial_cpu = time.process_time() - c0
        pool = timed(
            f"local pool x{args.workers}",
            LocalPoolExecutor(args.workers),
            requests(root / "p", args.seeds),
        )
        import ray

        from emulator.sweep.ray_executor import RayExecutor

        t0 = time.perf_counter()
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        print(f"{'ray start (local)':<22}{time.perf_counter() - t0:24.1f} s")
        try:
            on_ray = timed(f"ray x{args.workers}", RayExecutor(), requests(root / "r", args.seeds))
        finally:
            ray.shutdown()
    n = 4 * args.seeds
    per_run_cpu = serial_cpu / n  # CPU time: what a run costs on an idle core
    print(
        f"per run: {per_run_cpu:.2f} CPU s ({serial / n:.2f} s wall, serial); wall speed-up "
        f"pool {serial / pool:.2f}x, ray {serial / on_ray:.2f}x on {args.workers} cores"
    )
    for cores in (2, 32, 128):
        print(
            f"1,000 runs on {cores:>3} cores: ~{1000 * per_run_cpu / cores / 60:6.1f} min "
            f"(= {1000 * per_run_cpu / 3600:.2f} core-hours)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
