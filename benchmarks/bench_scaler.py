"""Benchmark the analytic scaler: one full evaluation (both fabrics, all five modes, E-ECMP
with 16 QPs per connection) per collective at 24,576 and 101,376 GPUs.  Prints medians.

Targets on the 2-core dev machine: 24K GPUs < 5 s, 100K GPUs < 60 s (per collective).

    .venv/bin/python benchmarks/bench_scaler.py [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time

from emulator.scaler import sweep
from emulator.scaler.model.fabric import EXTENSION_100K_GPUS, LLAMA3_GPUS
from emulator.scaler.sweep import Scenario

TARGETS = {LLAMA3_GPUS: 5.0, EXTENSION_100K_GPUS: 60.0}


def bench(gpus: int, collective: str, repeat: int) -> list[float]:
    """Wall-clock seconds of ``repeat`` full evaluations."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sweep.run(Scenario(gpus=gpus, collective=collective, qps=16))
        times.append(time.perf_counter() - t0)
    return times


def bench_cli(gpus: int, repeat: int) -> list[float]:
    """Wall-clock seconds of ``fabemu scale`` with a 6-point sweep, tables and plots."""
    from emulator.cli.main import main

    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                main(["scale", "--gpus", str(gpus), "--out", out])
            times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    """Run the benchmark and print one line per case."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="24K only")
    args = ap.parse_args()
    rows = []
    for gpus in [LLAMA3_GPUS] if args.quick else list(TARGETS):
        for collective in ("ring", "hd", "alltoall"):
            times = bench(gpus, collective, args.repeat)
            rows.append(
                (f"{gpus:>7,} GPUs {collective:<8}", statistics.median(times), TARGETS[gpus])
            )
    cli = bench_cli(LLAMA3_GPUS, 1)
    results = [
        f"{name}  median {med:7.2f} s  (target < {tgt:g} s)  {'OK' if med < tgt else 'SLOW'}"
        for name, med, tgt in rows
    ]
    print("\n".join(results))
    print(
        f"fabemu scale --gpus 24576 (6-point sweep + plots, ring): {statistics.median(cli):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
