"""Flat summary metrics of a run: the names scenario expectations (``expect:``) refer to.

Every value is a finite float. A metric the run cannot produce (no flows, no collectives, no
link series, no CTS samples) is left out rather than set to 0, so an expectation on it is
reported "missing" and NOT met instead of silently passing. Units are in the names:
``_gbps`` Gbit/s (1e9 bit/s, also for busbw/algbw), ``_ms`` milliseconds, ``_us`` microseconds.
docs/scenarios.md ("Results and reports") defines each metric.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from emulator.faults.metrics import FAULT_METRICS, fault_metrics
from emulator.scenario.runview import LinkSeries, RunView, as_view

IDLE_FRACTION = 0.05
"""An uplink is idle when it carried less than this fraction of its leaf's mean uplink bytes
(ACK/CTS packets flowing back are about 1% of the data they acknowledge)."""

COUNTERS = ("drops", "pause_frames", "ecn_marks", "retransmissions")

#: what :func:`collision_metrics` gives
COLLISION_METRICS = ("flows_sharing_uplink", "max_flows_per_uplink", "collided")
#: what :func:`emulator.scenario.training_run.training_metrics` gives for a training step
TRAINING_METRICS = (
    "step_ms", "tp_ms", "cp_ms", "pp_ms", "dp_ms", "exposed_comm_ms",
    "planned_cross_zone_bytes", "cross_zone_bytes_per_step",
)  # fmt: skip

#: every name :func:`summary_metrics` can produce (what ``expect:`` may refer to; the
#: golden-results test checks every shipped scenario's metrics are among them)
METRIC_NAMES = frozenset(
    (
        *COUNTERS, "conservation_ok", "completed", "max_uplink_imbalance", "idle_uplinks",
        "min_flow_gbps", "max_flow_gbps", "mean_flow_gbps", "fct_p50_ms", "fct_p99_ms",
        "cts_p99_latency_us", "busbw_gbps", "algbw_gbps", "collective_ms", "credit_stall_ms",
        *COLLISION_METRICS, *TRAINING_METRICS, *FAULT_METRICS,
    )
)  # fmt: skip


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100) of a non-empty sequence."""
    if not values:
        raise ValueError("percentile of no values")
    s = sorted(values)
    rank = math.ceil(p / 100 * len(s))
    return float(s[min(len(s) - 1, max(0, rank - 1))])


def summary_metrics(result: Any) -> dict[str, float]:
    """The flat metrics of a RunResult (or :class:`RunView`), by name."""
    run = as_view(result)
    out: dict[str, float] = {}
    for name in COUNTERS:
        if name in run.counters:
            out[name] = float(run.counters[name])
    if "credit_stall_max_ns" in run.counters:
        out["credit_stall_ms"] = run.counters["credit_stall_max_ns"] / 1e6
    if run.conservation_ok is not None:
        out["conservation_ok"] = 1.0 if run.conservation_ok else 0.0
    out["completed"] = 1.0 if completed(run) else 0.0
    out |= uplink_metrics(run)
    out |= collision_metrics(run)
    out |= flow_metrics(run)
    if run.cts_latency_ns:
        out["cts_p99_latency_us"] = percentile(run.cts_latency_ns, 99) / 1e3
    out |= collective_metrics(run)
    if getattr(result, "training", None):  # a training_step: step, axis and cross-zone figures
        from emulator.scenario.training_run import training_metrics

        out |= training_metrics(result.training, getattr(result, "links", ()))
    if getattr(result, "faults", None):
        out |= fault_metrics(result.faults)
    return out


def completed(run: RunView) -> bool:
    """The run is complete and every flow and collective in it finished."""
    return (
        run.complete
        and all(f.finished for f in run.flows)
        and all(c.finished for c in run.collectives)
    )


def sending_leaves(run: RunView) -> frozenset[str]:
    """Leaves that sent traffic into the fabric.

    With a host-to-leaf map: the leaves of flow sources whose destination hangs off another
    leaf. Without one: every leaf whose uplinks carried any bytes.
    """
    if run.host_leaf and run.flows:
        hl = run.host_leaf
        leaves = frozenset(
            hl[f.src] for f in run.flows if f.src in hl and hl.get(f.dst) != hl[f.src]
        )
        if leaves:
            return leaves
    return frozenset(s.node for s in run.uplinks if s.total_bytes > 0)


def _by_leaf(uplinks: Iterable[LinkSeries], leaves: frozenset[str]) -> dict[str, list[int]]:
    per: dict[str, list[int]] = defaultdict(list)
    for s in uplinks:
        if s.node in leaves:
            per[s.node].append(s.total_bytes)
    return per


def uplink_metrics(run: RunView) -> dict[str, float]:
    """``max_uplink_imbalance`` and ``idle_uplinks`` over the leaves that sent traffic."""
    uplinks = run.uplinks
    if not uplinks:
        return {}
    per_leaf = _by_leaf(uplinks, sending_leaves(run))
    if not per_leaf:
        return {}
    worst, idle = 1.0, 0
    for loads in per_leaf.values():
        mean = sum(loads) / len(loads)
        if mean <= 0:
            idle += len(loads)
            continue
        worst = max(worst, max(loads) / mean)
        idle += sum(1 for b in loads if b < IDLE_FRACTION * mean)
    return {"max_uplink_imbalance": worst, "idle_uplinks": float(idle)}


def collision_metrics(run: RunView) -> dict[str, float]:
    """How fat flows shared leaf uplinks; a flow here is one (source, destination) pair's
    data, over all its QPs. ``flows_sharing_uplink``: flows that used an uplink another flow
    used too; ``max_flows_per_uplink``; ``collided``: 1 when any uplink carried two flows or
    more. Only flows with known uplinks count (none known: no metrics)."""
    used: dict[tuple[str, str], set[str]] = defaultdict(set)
    for f in run.flows:
        used[(f.src, f.dst)].update(f.uplinks)
    placed = [ups for ups in used.values() if ups]
    if not placed:
        return {}
    per: dict[str, int] = defaultdict(int)
    for ups in placed:
        for u in ups:
            per[u] += 1
    sharing = sum(1 for ups in placed if any(per[u] > 1 for u in ups))
    most = max(per.values())
    return {
        "flows_sharing_uplink": float(sharing),
        "max_flows_per_uplink": float(most),
        "collided": 1.0 if most > 1 else 0.0,
    }


def flow_metrics(run: RunView) -> dict[str, float]:
    """Goodput and completion-time statistics of the finished flows."""
    done = [f for f in run.flows if f.finished and f.duration_ns > 0]
    if not done:
        return {}
    rates = [f.gbps for f in done]
    fct_ms = [f.duration_ns / 1e6 for f in done]
    return {
        "min_flow_gbps": min(rates),
        "max_flow_gbps": max(rates),
        "mean_flow_gbps": sum(rates) / len(rates),
        "fct_p50_ms": percentile(fct_ms, 50),
        "fct_p99_ms": percentile(fct_ms, 99),
    }


def collective_metrics(run: RunView) -> dict[str, float]:
    """busbw/algbw (Gbit/s) and time (ms) of the finished collectives; the slowest if several."""
    done = [c for c in run.collectives if c.finished and c.time_ns > 0]
    if not done:
        return {}
    slowest = max(done, key=lambda c: c.time_ns)
    return {
        "busbw_gbps": min(c.busbw_Bps for c in done) * 8 / 1e9,
        "algbw_gbps": min(c.algbw_Bps for c in done) * 8 / 1e9,
        "collective_ms": slowest.time_ns / 1e6,
    }
