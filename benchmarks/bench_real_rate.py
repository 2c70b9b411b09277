"""The fabric at its real rate in virtual time: 400 Gb/s figures (docs/runtimes.md).

Runs the shipped 400 Gb/s scenarios (scenarios/*_400g.yaml: 400 Gb/s links, 10 ns host and
500 ns fabric cables, 4 KiB RoCE MTU, 512 KiB x 8 NCCL-like chunks, 2 MiB queues, derived
PFC thresholds) and prints, per case, the medians over ``--seeds`` seeds:

* one unloaded flow (h0 -> h4, 16 MiB): goodput and its share of the 400 Gb/s line rate;
* the flagship's 4 flows under ECMP + 1 QP (seeds where two flows share an uplink): the
  collided flows' rate over an uncollided flow's;
* 8:1 and 16:1 incast (4 MiB per sender): drops, PFC frames, slowest sender's goodput.

    .venv/bin/python benchmarks/bench_real_rate.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from emulator.scenario.runner import run_scenario

ROOT = Path(__file__).resolve().parents[1]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision_400g.yaml"
INCAST = ROOT / "scenarios" / "pfc_incast_400g.yaml"
SIXTEEN = ["h4", "h8", "h12", "h16", "h20", "h24", "h28", "h1"]
SIXTEEN += ["h5", "h9", "h13", "h17", "h21", "h25", "h29", "h2"]
LINE = 400e9


def _run(path: Path, over: dict[str, Any]) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        return run_scenario(path, over, runtime="virtual", out=tmp, report=False)


def single_flow(seeds: list[int]) -> None:
    """Goodput of one flow alone in the fabric."""
    rates = []
    for s in seeds:
        out = _run(FLAGSHIP, {"seed": s, "workload.pairs": [["h0", "h4"]]})
        rates.append(out.result.flows[0].throughput_bps)
    med = statistics.median(rates)
    print(f"unloaded flow: {med / 1e9:.1f} Gb/s = {med / LINE:.1%} of line rate (n={len(rates)})")


def shared_uplink(seeds: list[int]) -> None:
    """Collided flows' goodput over an uncollided flow's, on seeds with a collision."""
    ratios, alone_rates = [], []
    for s in seeds:
        per: dict[str, list[float]] = {}
        for f in _run(FLAGSHIP, {"seed": s}).result.flows:
            per.setdefault(f.uplinks[0], []).append(f.throughput_bps)
        alone = [r[0] for r in per.values() if len(r) == 1]
        shared = [x for r in per.values() if len(r) == 2 for x in r]
        if alone and shared:
            ratios += [x / max(alone) for x in shared]
            alone_rates += alone
    if not ratios:
        print("two flows on one uplink: no seed had both a collision and a flow alone")
        return
    print(
        f"two flows on one uplink: each {statistics.median(ratios):.1%} of an uncollided "
        f"flow's {statistics.median(alone_rates) / 1e9:.1f} Gb/s (n={len(ratios)} flows)"
    )


def incast(seeds: list[int]) -> None:
    """8:1 and 16:1 incast with derived PFC thresholds."""
    for label, senders in (("8:1", None), ("16:1", SIXTEEN)):
        drops, pauses, slowest = [], [], []
        for s in seeds:
            over: dict[str, Any] = {"seed": s}
            if senders:
                over["workload.senders"] = senders
            m = _run(INCAST, over).metrics
            drops.append(m["drops"])
            pauses.append(m["pause_frames"])
            slowest.append(m["min_flow_gbps"])
        print(
            f"{label} incast: drops max {max(drops):g}, PFC frames median "
            f"{statistics.median(pauses):g}, slowest sender median "
            f"{statistics.median(slowest):.1f} Gb/s (n={len(seeds)})"
        )


def main() -> None:
    """Parse ``--seeds`` and print every figure."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N per case (default 5)")
    seeds = list(range(1, ap.parse_args().seeds + 1))
    single_flow(seeds[:2])  # one flow: the seed only moves its QPNs
    shared_uplink(seeds)
    incast(seeds)


if __name__ == "__main__":
    main()
