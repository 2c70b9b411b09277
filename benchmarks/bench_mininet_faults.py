"""Faults on the Mininet runtime (root; wall clock): per-fault spans and the IB re-sweep.

Repeated runs (seed 3; wall-clock runs differ anyway) on ``two_rack_2spine`` (10 Mb/s),
RTO 500 ms, repair after 50 ms:

* ``roce``: h0 -> h2 (4 MiB); fault 0 cuts idle h1's link at 1.8 s, fault 1 cuts
  rtsw0-ctsw1 (the flow's uplink with seed 3) at 2.5 s.
  Prints each fault's ``retransmissions`` / ``timeouts`` (from the RNIC processes' event
  logs) and the run's total.
* ``ib``: ``fabric: ib``, h0 -> h2 and h1 -> h3 (2 MiB each), rtsw0-ctsw0 down at 1.8 s.
  Prints OpenSM's re-sweep wall time, time to detect (delay + sweep + LFT commands), time
  to repair and the LFT operations installed.
* ``host_loss``: 2% ``loss`` on h0's link and 2% ``corrupt`` on h1's (RTO 200 ms), h0 -> h2
  and h1 -> h3 (1 MiB each): the fractions of what h0 / h1 sent that their RNIC processes
  lost / corrupted, and the ICRC errors at h3 (h1's corrupted frames).

Median [min, max] over the runs::

    sudo .venv/bin/python benchmarks/bench_mininet_faults.py --reps 3 [roce] [ib] [host_loss]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

import yaml

from emulator.scenario.runner import run_scenario

ROOT = Path(__file__).resolve().parents[1]
BASE: dict[str, Any] = {
    "name": "bench_mininet_faults",
    "topology": str(ROOT / "topologies/two_rack_2spine.yaml"),
    "switch": {"program": str(ROOT / "p4/roce_fabric.p4"),
               "control": {"detection_delay_us": 50000}},
    "rnic": {"chunk_bytes": 16384, "rto_ms": 500},
    "runtime": "mininet",
    "duration_ms": 40000,
}  # fmt: skip
CASES: dict[str, dict[str, Any]] = {
    "roce": {
        "workload": {"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 4 << 20},
        "faults": [
            {"at_ms": 1800, "kind": "link_down", "link": ["h1", "rtsw0"]},
            {"at_ms": 2500, "kind": "link_down", "link": ["rtsw0", "ctsw1"]},
        ],
    },
    "ib": {
        "fabric": "ib",
        "workload": {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]],
                     "size_bytes": 2 << 20},
        "faults": [{"at_ms": 1800, "kind": "link_down", "link": ["rtsw0", "ctsw0"]}],
    },
    "host_loss": {
        "workload": {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]],
                     "size_bytes": 1 << 20},
        "rnic": {"chunk_bytes": 16384, "rto_ms": 200},
        "faults": [
            {"at_ms": 800, "kind": "loss", "link": ["h0", "rtsw0"], "probability": 0.02,
             "for_ms": 25000},
            {"at_ms": 800, "kind": "corrupt", "link": ["h1", "rtsw0"], "probability": 0.02,
             "for_ms": 25000},
        ],
    },
}  # fmt: skip


def _host_loss(out: Any) -> dict[str, float]:
    """What h0 / h1 lost / corrupted of what they sent, and the ICRC errors at h3."""
    h = out.result.hosts
    return {
        "h0_lost_fraction": h["h0"]["impaired_lost"] / h["h0"]["tx_pkts"],
        "h1_corrupted_fraction": h["h1"]["impaired_corrupted"] / h["h1"]["tx_pkts"],
        "h1_corrupted": h["h1"]["impaired_corrupted"],
        "h3_icrc_errors": h["h3"]["icrc_errors"],
        "flows_done_ms": max(f.end_ns for f in out.result.flows) / 1e6,
    }


def one(case: str, rep: int, tmp: Path) -> dict[str, float]:
    """Run ``case`` once (repetition ``rep``); its figures (empty if the run failed)."""
    path = tmp / f"{case}-{rep}.yaml"
    path.write_text(yaml.safe_dump(BASE | CASES[case] | {"seed": 3}))
    out = run_scenario(path, out=tmp / f"{case}-{rep}", report=False)
    f = out.result.faults if out.result is not None else None
    if out.error is not None or f is None or not out.result.meta.complete:
        print(f"  {case} run {rep}: failed or incomplete ({out.error})")
        return {}
    per = f["faults"]
    if case == "host_loss":
        return _host_loss(out)
    if case == "roce":
        return {
            "idle_fault_retransmissions": per[0]["retransmissions"],
            "cut_retransmissions": per[1]["retransmissions"],
            "cut_timeouts": per[1]["timeouts"],
            "run_retransmissions": f["retransmissions"],
        }
    repair = f["repairs"][0]
    return {
        "resweep_s": repair["resweep_s"],
        "time_to_detect_ms": per[0]["time_to_detect_ms"],
        "time_to_repair_ms": per[0]["time_to_repair_ms"] or float("nan"),
        "lft_operations": repair["operations"],
        "retransmissions": f["retransmissions"],
    }


def main() -> None:
    """Parse arguments, run, print median [min, max] per figure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("cases", nargs="*", help=f"of {sorted(CASES)} (default: all)")
    args = ap.parse_args()
    unknown = set(args.cases) - set(CASES)
    if unknown:
        ap.error(f"unknown case(s) {sorted(unknown)}; known: {sorted(CASES)}")
    with tempfile.TemporaryDirectory(prefix="bench-mn-faults-") as d:
        for case in args.cases or list(CASES):
            rows = [r for k in range(args.reps) if (r := one(case, k, Path(d)))]
            print(f"{case}: {len(rows)}/{args.reps} runs")
            for key in rows[0] if rows else []:
                vals = [r[key] for r in rows]
                print(f"  {key}: {statistics.median(vals):.4g} "
                      f"[{min(vals):.4g}, {max(vals):.4g}]  per run {vals}")  # fmt: skip


if __name__ == "__main__":
    main()
