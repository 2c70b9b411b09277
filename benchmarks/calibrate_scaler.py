"""Calibrate the analytic scaler on a sweep of small virtual-time emulator runs.

Ring and halving-doubling AllReduce over every host of 8-, 16- and 32-host fabrics, ECMP
and E-ECMP with 1 and 4 QPs, spread placement; the 16-host fabric also at 20 Mb/s so the
per-step latency splits into a fixed and a rate-proportional part.  Fits on the 8- and
16-rank jobs, predicts the 32-rank jobs, prints the fit and the held-out errors::

    .venv/bin/python benchmarks/calibrate_scaler.py [--out results/calibration] [--reuse]

``--reuse`` skips cases whose result file already exists in ``--out``. ``--fabric ib`` runs
the same jobs on the InfiniBand fabric (OpenSM ftree, static and adaptive routing, 1 QP)
into ``results/calibration-ib`` by default.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from emulator.scaler.calibration.emufit import fit_runs, holdout
from emulator.scaler.calibration.emulated import PATHS, read_runs
from emulator.scaler.calibration.emurun import Case, run_case

KIB = 1024
LB = (("ecmp", 1), ("ecmp", 4), ("eecmp", 1), ("eecmp", 4))
IB_LB = (("ib_static", 1), ("ib_adaptive", 1))
ALGOS = ("ring", "halving_doubling")
#: (topology, ranks, per-rank message sizes as multiples of ranks * 8 KiB)
FABRICS = (
    ("calib_4x2", 8, (1, 4)),
    ("calib_4x4", 16, (1, 4)),
    ("calib_4x4_20mbps", 16, (1, 4)),
    ("ai_zone_small", 32, (1,)),
)


def cases(fabric: str = "roce") -> list[Case]:
    """The sweep."""
    out = []
    for topo, n, mults in FABRICS:
        for mult in mults:
            for algo in ALGOS:
                for lb, q in IB_LB if fabric == "ib" else LB:
                    out.append(Case(topo, n, algo, lb, q, n * 8 * KIB * mult))
    return out


def main() -> int:
    """Run (or reuse) the sweep, fit, hold out, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--fabric", choices=("roce", "ib"), default="roce")
    args = ap.parse_args()
    args.out = args.out or Path("results/calibration" + ("-ib" if args.fabric == "ib" else ""))
    walls = []
    for case in cases(args.fabric):
        target = args.out / f"{case.name}.result.json"
        if args.reuse and target.exists():
            continue
        t0 = time.monotonic()
        run_case(case, args.out)
        walls.append(time.monotonic() - t0)
        print(f"ran {case.name:50s} {walls[-1]:6.2f} s wall", flush=True)
    if walls:
        print(f"{len(walls)} runs, median {np.median(walls):.2f} s, max {max(walls):.2f} s wall")
    runs = read_runs([args.out])
    full = fit_runs(runs)
    print(json.dumps({k: v for k, v in full.as_dict().items() if k != "residuals"}, indent=1))
    ho = holdout(runs)
    fit = ho["fit"]
    assert isinstance(fit, dict)
    print(f"\nfit on ranks {ho['train_ranks']} ({fit['runs']} runs, measured paths):")
    for key in ("alpha0_s", "alpha_bits", "efficiency", "penalty"):
        print(f"  {key:11s} {fit[key]:.6g} +- {fit['stderr'][key]:.2g}")
    print(
        f"  in-sample |rel err| median {fit['median_abs_rel_error']:.1%}, "
        f"max {fit['max_abs_rel_error']:.1%}"
    )
    for row in fit["residuals"]:
        print(f"    {row['run']:48s} {row['measured_s']:8.4f} s  {row['rel_error']:+7.1%}")
    for label in ho["excluded"]:
        print(f"  excluded (outside the model): {label}")
    for paths in PATHS:
        part = ho[paths]
        assert isinstance(part, dict)
        print(f"\nheld out ranks {ho['test_ranks']}, B from {paths} paths:")
        for row in part["rows"]:
            print(
                f"    {row['run']:48s} meas {row['measured_s']:8.4f} s  "
                f"pred {row['predicted_s']:8.4f} s  {row['rel_error']:+7.1%}"
            )
        print(
            f"  |rel err| median {part['median_abs_rel_error']:.1%}, "
            f"max {part['max_abs_rel_error']:.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
