"""Benchmark OpenSM's re-sweep after a link failure (emulator.faults.ib_resweep).

For each topology: ibsim with its console, one initial ftree sweep, then ``--reps`` times:
cut the first leaf's first uplink (``Unlink``), sweep (ftree no longer sees a fat tree and
OpenSM falls back to minhop), restore it (``ReLink``), sweep again. Prints the median wall
time of the degraded and of the restored sweep (seconds, OpenSM start to LFTs read back
with ibroute) and how many LFT entries changed.

    .venv/bin/python benchmarks/bench_ib_resweep.py [--reps 5] [topology ...]
"""

from __future__ import annotations

import argparse
import statistics

from emulator.faults.ib_resweep import LiveIbSubnet
from emulator.ib.subnet import SmOptions
from emulator.topology import load_clos, resolve


def bench(name: str, reps: int) -> tuple[float, float, int]:
    """(median degraded sweep s, median restored sweep s, LFT entries changed)."""
    topo = resolve(load_clos(name))
    leaf = topo.switches_by_role("leaf")[0]
    peer = leaf.uplink_ports[0].peer
    down, up, changed = [], [], 0
    with LiveIbSubnet(topo) as sub:
        base, _ = sub.sweep(SmOptions())
        for _ in range(reps):
            sub.set_link(leaf.name, peer, up=False)
            cut, secs = sub.sweep(SmOptions())
            down.append(secs)
            changed = sum(
                1 for sw, lft in cut.lfts.items() for lid, p in lft.items()
                if base.lfts[sw].get(lid) != p
            )  # fmt: skip
            sub.set_link(leaf.name, peer, up=True)
            _, secs = sub.sweep(SmOptions())
            up.append(secs)
    return statistics.median(down), statistics.median(up), changed


def main() -> None:
    """Parse arguments, run, print one line per topology."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("topologies", nargs="*", default=["two_rack_2spine", "calib_4x4"])
    args = ap.parse_args()
    print("topology          switches  degraded sweep s  restored sweep s  LFT entries changed")
    for name in args.topologies:
        d, u, n = bench(name, args.reps)
        switches = len(resolve(load_clos(name)).switches)
        print(f"{name:<17} {switches:>8}  {d:>16.3f}  {u:>16.3f}  {n:>19}")


if __name__ == "__main__":
    main()
