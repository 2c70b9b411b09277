"""Run the scaler over fabrics, modes and GPU counts and collect flat result records.

One record = one (fabric kind, GPU count, mode) for the requested collective, with the
completion time, bandwidths, the worst phase's bottleneck and its RTSW-uplink
flows-per-link distribution next to the balls-into-bins expectation for the same flows.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.errors import UserError
from emulator.scaler.model import ballsbins
from emulator.scaler.model.collectives import plan_collective
from emulator.scaler.model.fabric import ClosFabric, meta_fabric
from emulator.scaler.model.maxmin import connection_rates
from emulator.scaler.model.routing import HASHED_MODES, MODES, modes_for
from emulator.scaler.model.timing import ModelParams, evaluate


@dataclass(frozen=True)
class Scenario:
    """What the user asked for (the CLI's options)."""

    gpus: int
    fabrics: tuple[str, ...] = ("roce", "ib")
    modes: tuple[str, ...] = MODES
    qps: int = 16
    channels: int = 1
    collective: str = "ring"
    message_bytes: float = float(2**30)
    placement: str = "packed"
    seed: int = 0
    maxmin: bool = False  # also compute max-min rates of the worst phase (slower)


def sweep_sizes(gpus: int, points: int = 6, smallest: int = 256) -> list[int]:
    """GPU counts for the metrics-vs-size plots: ``gpus`` halved down to ``smallest``."""
    sizes = [gpus]
    while len(sizes) < points and sizes[-1] // 2 >= smallest and (sizes[-1] // 2) % 8 == 0:
        sizes.append(sizes[-1] // 2)
    return sorted(sizes)


def run_one(fabric: ClosFabric, sc: Scenario, mode: str, params: ModelParams) -> dict[str, object]:
    """Evaluate one mode on one fabric; return a flat JSON-ready record."""
    plan = plan_collective(fabric, sc.collective, sc.message_bytes, sc.placement, seed=sc.seed)
    res = evaluate(
        fabric, plan, mode, qps=sc.qps, seed=sc.seed, params=params, channels=sc.channels
    )
    rec: dict[str, object] = {
        "fabric": fabric.kind,
        "gpus": fabric.gpus,
        "zones": fabric.zones,
        "mode": mode,
        "qps": sc.qps if mode == "eecmp" else 1,
        "channels": sc.channels,
        "collective": sc.collective,
        "placement": sc.placement,
        "message_bytes": sc.message_bytes,
        "time_s": res.time_s,
        "network_s": res.network_s,
        "nvlink_s": res.nvlink_s,
        "algbw_gbps": res.algbw_gbps,
        "busbw_gbps": res.busbw_gbps,
        "slowdown": res.slowdown,
        "flow_gbps": res.flow_gbps,
    }
    if not res.phases:
        return rec
    worst = max(res.phases, key=lambda p: p.slowdown)
    if sc.maxmin and mode != "ib_adaptive":
        ph = plan.phases[res.phases.index(worst)]
        k = sc.channels * (sc.qps if mode == "eecmp" else 1)
        rates = connection_rates(fabric, mode, ph.src, ph.dst, k, ph.slot, sc.seed)
        rec["maxmin_min_gbps"] = float(rates.min()) / 1e9
        rec["maxmin_mean_gbps"] = float(rates.mean()) / 1e9
    stats = worst.loads.layer_stats("leaf_up")
    rec["leaf_up"] = stats
    rec["leaf_up_histogram"] = worst.loads.histogram("leaf_up")
    rec["leaf_up_load_histogram"] = worst.loads.load_histogram("leaf_up")
    if mode in HASHED_MODES and stats["max"] > 0:
        k = sc.channels * (sc.qps if mode == "eecmp" else 1)
        groups = worst.loads.flows_per_group("leaf_up")
        expect = ballsbins.expected_max_load_groups(groups, fabric.uplinks_per_leaf)
        rec["leaf_up_expected_max"] = expect / k
    return rec


def run(
    sc: Scenario, params: ModelParams | None = None, sizes: list[int] | None = None
) -> list[dict[str, object]]:
    """Every requested (fabric, size, mode) record; sizes default to just ``sc.gpus``."""
    params = params or ModelParams()
    check_modes(sc)
    records = []
    for kind in sc.fabrics:
        modes = [m for m in sc.modes if m in modes_for(kind)]
        for gpus in sizes or [sc.gpus]:
            fabric = meta_fabric(gpus, kind)
            for mode in modes:
                records.append(run_one(fabric, sc, mode, params))
    return records


def check_modes(sc: Scenario) -> None:
    """Refuse a scenario none of whose modes exists on any of its fabrics."""
    if not any(m in modes_for(kind) for kind in sc.fabrics for m in sc.modes):
        raise UserError(
            f"no mode of {', '.join(sc.modes)} exists on fabric(s) {', '.join(sc.fabrics)} "
            "(RoCE: ecmp, eecmp, pinning; IB: ib_static, ib_adaptive)"
        )
