"""Alpha-beta timing of a collective from the link loads of its phases.

One network step of a phase moving ``b`` bytes per connection takes::

    t = alpha + 8 b / (nic_rate * efficiency) * B * (1 + penalty * (B - 1))

``B`` = the phase's bottleneck slowdown (max over links of load / capacity, in NIC-rate
units): under max-min fair sharing the slowest flow of a bulk-synchronous step is one on the
most loaded link and gets exactly ``capacity / flows`` there, so ``B`` is exact for equal
flows.  ``penalty`` models what fluid sharing misses when flows collide (PFC head-of-line
blocking, unfair arbitration); 0 means ideal sharing.  The NVLink stage adds
``steps * nvlink_alpha + 8 bytes / nvlink_rate``.  ``t`` is linear in
``(alpha, 1/efficiency, penalty/efficiency)``: calibration is a linear least-squares fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from emulator.scaler.model.collectives import CollectivePlan
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import LinkLoads, link_loads


@dataclass(frozen=True)
class ModelParams:
    """The model's free parameters (fitted by :mod:`emulator.scaler.calibration.points`)."""

    alpha_s: float = 8e-6
    efficiency: float = 0.92
    penalty: float = 0.0
    nvlink_alpha_s: float = 2e-6
    nvlink_efficiency: float = 0.8


@dataclass(frozen=True)
class PhaseResult:
    """Loads and time of one phase."""

    slowdown: float
    steps: float
    bytes_per_conn: float
    time_s: float
    loads: LinkLoads = field(repr=False)


@dataclass(frozen=True)
class CollectiveResult:
    """Completion time and bandwidths of one collective under one load-balancing mode."""

    mode: str
    time_s: float
    network_s: float
    nvlink_s: float
    algbw_gbps: float
    busbw_gbps: float
    slowdown: float  # worst phase
    flow_gbps: float  # bottleneck share of a connection in the worst phase
    phases: tuple[PhaseResult, ...] = field(repr=False)


def features(slowdown: float, steps: float, bytes_per_conn: float, nic_bps: float) -> np.ndarray:
    """Coefficients of (alpha, 1/efficiency, penalty/efficiency) in a phase's time."""
    wire = 8.0 * bytes_per_conn / nic_bps * slowdown
    return np.array([steps, steps * wire, steps * wire * (slowdown - 1.0)])


def step_time(params: ModelParams, slowdown: float, bytes_per_conn: float, nic_bps: float) -> float:
    """Time of one network step (see the module docstring)."""
    wire = 8.0 * bytes_per_conn / (nic_bps * params.efficiency)
    return params.alpha_s + wire * slowdown * (1.0 + params.penalty * (slowdown - 1.0))


def nvlink_time(params: ModelParams, plan: CollectivePlan, fabric: ClosFabric) -> float:
    """Intra-host NVLink stage time of a plan."""
    if plan.nvlink_bytes <= 0:
        return 0.0
    rate = fabric.nvlink_bps * params.nvlink_efficiency
    return plan.nvlink_steps * params.nvlink_alpha_s + 8.0 * plan.nvlink_bytes / rate


def evaluate(
    fabric: ClosFabric,
    plan: CollectivePlan,
    mode: str,
    qps: int = 1,
    seed: int = 0,
    params: ModelParams | None = None,
    channels: int = 1,
) -> CollectiveResult:
    """Route every phase of ``plan`` under ``mode`` and time the collective."""
    params = params or ModelParams()
    phases = []
    for ph in plan.phases:
        loads = link_loads(
            fabric, mode, ph.src, ph.dst, qps=qps, slot=ph.slot, seed=seed, channels=channels
        )
        b = loads.slowdown()
        t = ph.steps * step_time(params, b, ph.bytes_per_conn, fabric.nic_bps)
        phases.append(PhaseResult(b, ph.steps, ph.bytes_per_conn, t, loads))
    return summarise(fabric, plan, mode, params, tuple(phases))


def summarise(
    fabric: ClosFabric,
    plan: CollectivePlan,
    mode: str,
    params: ModelParams,
    phases: tuple[PhaseResult, ...],
) -> CollectiveResult:
    """Combine per-phase results (re-timed with ``params``) into a collective result."""
    net = sum(
        p.steps * step_time(params, p.slowdown, p.bytes_per_conn, fabric.nic_bps) for p in phases
    )
    nv = nvlink_time(params, plan, fabric)
    total = net + nv
    worst = max((p.slowdown for p in phases), default=1.0)
    algbw = 8.0 * plan.message_bytes / total / 1e9 if total > 0 else float("inf")
    return CollectiveResult(
        mode=mode,
        time_s=total,
        network_s=net,
        nvlink_s=nv,
        algbw_gbps=algbw,
        busbw_gbps=algbw * plan.bus_factor,
        slowdown=worst,
        flow_gbps=fabric.nic_bps * params.efficiency / worst / 1e9,
        phases=phases,
    )
