"""A scenario's workload in ``emulator.traffic.workloads.workload_from_dict`` terms.

Hosts are placed here, once per run (``ranks`` + ``placement`` -> host names), and checked
against the topology; the runtimes deploy the mapping as it is.
"""

from __future__ import annotations

from typing import Any

from emulator.errors import UserError
from emulator.scenario.schema import Scenario
from emulator.topology import ResolvedTopology
from emulator.traffic.endpoints import racks
from emulator.traffic.seeding import rng
from emulator.traffic.workloads import place


def shuffled_pairs(pairs: list[list[str]], seed: int) -> list[list[str]]:
    """``pairs`` with their destinations in a random order drawn from ``seed``."""
    dsts = [p[1] for p in pairs]
    rng(seed, "placement").shuffle(dsts)
    return [[p[0], d] for p, d in zip(pairs, dsts)]


def workload_mapping(sc: Scenario, topo: ResolvedTopology) -> dict[str, Any]:
    """The scenario's workload as a ``workload_from_dict`` mapping (hosts placed)."""
    w = sc.workload
    out: dict[str, Any] = {"kind": w.kind, "size_bytes": w.size_bytes, "num_qps": w.num_qps}
    if w.kind == "fat_flows":
        out["pairs"] = [list(p) for p in w.pairs or []]
        if w.placement == "random":
            out["pairs"] = shuffled_pairs(out["pairs"], sc.seed)
        out["iterations"] = w.iterations
    elif w.kind == "incast":
        out["senders"], out["receiver"] = list(w.senders or []), w.receiver
    else:
        hosts = w.hosts or place(w.ranks or 2, racks(topo.hosts), w.placement, sc.seed)
        out["hosts"], out["iterations"] = list(hosts), w.iterations
        if w.kind == "allreduce":
            out["algorithm"] = w.algorithm
    _check_hosts(out, topo)
    return out


def _check_hosts(out: dict[str, Any], topo: ResolvedTopology) -> None:
    known = {h.name for h in topo.hosts}
    named = [h for p in out.get("pairs", []) for h in p]
    named += out.get("senders", []) + out.get("hosts", []) + [out.get("receiver")]
    unknown = sorted({h or repr(h) for h in named if h is not None and h not in known})
    if unknown:
        raise UserError(
            f"workload names hosts not in topology {topo.name}: {', '.join(unknown)} "
            f"(hosts are {min(known)}..{max(known, key=lambda s: (len(s), s))})"
        )
