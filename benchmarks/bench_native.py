"""The compiled data path (emulator/native, mypyc) against the interpreted one.

Which modules are compiled is decided once per process, at import, so each way runs in its
own worker process: one worker with ``FABEMU_NATIVE=0``, one with the compiled modules.
The workers stay up and take turns: the parent asks one, then the other, to run the same
case once (who goes first alternates), so each pair of runs is close in time. The
machine's speed drifts by up to ~1.7x within minutes here; a pair's ratio cancels most of
that, so the medians of the per-pair ratios are the figures to quote. Cases: those of
``bench_virtual.py`` (hops per CPU second, default speed-ups) and the flagship's four
variants through ``run_scenario`` (CPU seconds).

    .venv/bin/python benchmarks/bench_native.py [--pairs 5] [--quick] [--tree OTHER]

``--tree OTHER`` compares two builds instead: this tree's compiled modules against those
of another checkout (its own ``python -m emulator.native build`` done, imported through
``PYTHONPATH``), both compiled; the first column is then OTHER's.

Needs the compiled build (``scripts/setup.sh`` or ``python -m emulator.native build``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
FLAGSHIP = "flagship x4 (CPU s)"


def worker(quick: bool) -> None:
    """Answer each case name read from stdin with one JSON line: that case run once."""
    sys.path.insert(0, str(HERE))
    import bench_virtual as bv

    from emulator import native
    from emulator.p4c import compile_file
    from emulator.scenario.runner import run_scenario

    bv.set_mode("1")
    cases = {
        label: (cfg, work) for label, cfg, work in bv.cases(compile_file(str(bv.PROGRAM)), quick)
    }
    import emulator

    hello = {"state": native.status().state, "cases": [*cases, FLAGSHIP], "tree": emulator.__file__}
    print(json.dumps(hello), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n, line in enumerate(sys.stdin):
            label = line.strip()
            if label == FLAGSHIP:
                c0 = time.process_time()
                for i, ov in enumerate(bv.FLAGSHIP_VARIANTS):
                    run_scenario(bv.FLAGSHIP, ov, out=Path(tmp) / f"{n}-{i}", report=False)
                value = time.process_time() - c0
            else:
                value = bv.one_run(*cases[label])["hops_per_cpu_s"]
            print(json.dumps({"value": value}), flush=True)


def _ask(proc: subprocess.Popen[str], label: str) -> float:
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None
    stdin.write(label + "\n")
    stdin.flush()
    return float(json.loads(_line(stdout))["value"])


def _line(stream: IO[str]) -> str:
    line = stream.readline()
    if not line:
        raise SystemExit("a worker died (see its stderr above)")
    return line


def main() -> int:
    """Run each case ``--pairs`` times each way, in alternating pairs; print median ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pairs", type=int, default=5, help="pairs of runs per case")
    ap.add_argument("--quick", action="store_true", help="skip the 256-host fabric")
    ap.add_argument("--tree", help="another checkout to compare with (compiled both)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.quick)
        return 0
    workers: dict[str, subprocess.Popen[str]] = {}
    try:
        for way, value in (("interpreted", "0"), ("compiled", "1")):
            cmd = [sys.executable, __file__, "--worker", *(["--quick"] if args.quick else [])]
            env = {**os.environ, "FABEMU_NATIVE": value}
            if args.tree and way == "interpreted":  # the other checkout's build instead
                env.update(FABEMU_NATIVE="1", PYTHONPATH=str(Path(args.tree).resolve()))
            workers[way] = subprocess.Popen(
                cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
        hello: dict[str, Any] = {}
        for way, proc in workers.items():
            assert proc.stdout is not None
            hello[way] = json.loads(_line(proc.stdout))
        for way in ("compiled", "interpreted") if args.tree else ("compiled",):
            if hello[way]["state"] != "compiled":
                raise SystemExit(f"a worker ran {hello[way]['state']}: build it first")
        if args.tree:
            print(f"other tree: {hello['interpreted']['tree']}; this: {hello['compiled']['tree']}")
        first = "other tree" if args.tree else "interpreted"
        print(f"{'case':<24}{first:>12}{'compiled':>10}   ratio per pair (compiled faster > 1)")
        for label in hello["compiled"]["cases"]:
            got: dict[str, list[float]] = {"interpreted": [], "compiled": []}
            for n in range(args.pairs):
                order = ("interpreted", "compiled") if n % 2 == 0 else ("compiled", "interpreted")
                for way in order:
                    got[way].append(_ask(workers[way], label))
            pairs = list(zip(got["interpreted"], got["compiled"]))
            ratios = [i / c if label == FLAGSHIP else c / i for i, c in pairs]
            print(
                f"{label:<24}{statistics.median(got['interpreted']):>12.1f}"
                f"{statistics.median(got['compiled']):>10.1f}   "
                f"{', '.join(f'{r:.2f}' for r in ratios)}  (median {statistics.median(ratios):.2f})",
                flush=True,
            )
    finally:
        for proc in workers.values():
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
