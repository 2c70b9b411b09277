"""A training step's time at 24K-100K GPUs, with each of Meta's optimisations on or off.

The job description is the emulator's (``workload.job`` of a ``training_step`` scenario):
TP, CP and PP degrees and the model; DP grows to fill the GPUs (``DP = N / (TP CP PP)``).
Stages as :mod:`emulator.traffic.training` (barriers, no overlap); each axis' time from
the alpha-beta model of :mod:`emulator.scaler.model.timing` with the bottleneck slowdown
of the links its connections load (:func:`emulator.scaler.model.routing.link_loads`)::

    mapping      on: ranks in [TP, CP, PP, DP] order on GPUs in placement order
                 off: ranks numbered DP-fastest (TP lands across hosts, on the fabric)
    collectives  on: DP hierarchical (ring inside each zone, halving-doubling across when
                 the zone count is a power of two, else ring); off: flat ring
    lb           on: E-ECMP with 16 QPs per connection ("16 flows per GPU pair");
                 off: ECMP with 1 QP
    placement    on: hosts in topology order (min cut); off: hosts in random order

Ring stages take ``2(n-1)`` (AllReduce) or ``n-1`` (AllGather) steps of ``bytes/n``; the
NVLink stage ``steps * nvlink_alpha + volume / (nvlink * efficiency)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from emulator.errors import UserError
from emulator.scaler.model.collectives import place_hosts
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import link_loads
from emulator.scaler.model.timing import ModelParams, step_time
from emulator.traffic.mapping import Degrees
from emulator.traffic.training import ModelShape, StepBytes, step_bytes

OPTIMISATIONS = ("mapping", "collectives", "lb", "placement")
#: Llama 3 / Meta's RoCE paper: 16 flows (QPs) per GPU pair under E-ECMP
LLAMA3_QPS = 16


@dataclass(frozen=True)
class Switches:
    """Which optimisations are on."""

    mapping: bool = True
    collectives: bool = True
    lb: bool = True
    placement: bool = True

    def label(self) -> str:
        """``all on``, ``all off`` or ``no <opt>, ...``."""
        off = [o for o in OPTIMISATIONS if not getattr(self, o)]
        if not off:
            return "all on"
        return "all off" if len(off) == len(OPTIMISATIONS) else "no " + ", no ".join(off)


def configurations() -> list[Switches]:
    """All on, each optimisation off by itself, all off."""
    out = [Switches()]
    out += [Switches(**{o: False}) for o in OPTIMISATIONS]
    out.append(Switches(False, False, False, False))
    return out


def degrees_at(gpus: int, tp: int, cp: int, pp: int) -> Degrees:
    """The job's degrees at ``gpus`` GPUs: DP fills the cluster."""
    inner = tp * cp * pp
    if gpus % inner:
        raise UserError(f"{gpus} GPUs is not a multiple of tp*cp*pp = {inner}")
    return Degrees(tp, cp, pp, gpus // inner)


def rank_gpus(fabric: ClosFabric, d: Degrees, sw: Switches, seed: int = 0) -> np.ndarray:
    """GPU of every rank under the mapping and placement switches."""
    g = fabric.gpus_per_host
    phys = place_hosts(fabric, d.ranks, "packed" if sw.placement else "spread", seed)
    alloc = (phys[:, None] * g + np.arange(g)).ravel()
    r = np.arange(d.ranks)
    if sw.mapping:
        return alloc[r]
    t, c = r % d.tp, (r // d.tp) % d.cp
    p, q = (r // (d.tp * d.cp)) % d.pp, r // (d.tp * d.cp * d.pp)
    return alloc[q + d.dp * (p + d.pp * (c + d.cp * t))]


def axis_groups(gpu: np.ndarray, d: Degrees, axis: str) -> np.ndarray:
    """GPUs of every group of ``axis``: rows = groups, columns = the axis' coordinate."""
    grid = gpu.reshape(d.dp, d.pp, d.cp, d.tp)  # C order: TP fastest
    k = {"dp": 0, "pp": 1, "cp": 2, "tp": 3}[axis]
    return np.moveaxis(grid, k, -1).reshape(-1, grid.shape[k])


@dataclass(frozen=True)
class _Ctx:
    fabric: ClosFabric
    params: ModelParams
    mode: str
    qps: int
    seed: int


def _ring(ctx: _Ctx, groups: np.ndarray, steps: int, nbytes: float, slot: int) -> float:
    """``steps`` ring steps of ``nbytes`` over every row of ``groups`` at once."""
    if groups.shape[1] < 2 or steps < 1:
        return 0.0
    src, dst = groups.ravel(), np.roll(groups, -1, axis=1).ravel()
    b = link_loads(ctx.fabric, ctx.mode, src, dst, qps=ctx.qps, slot=slot, seed=ctx.seed)
    return steps * step_time(ctx.params, b.slowdown(), nbytes, ctx.fabric.nic_bps)


def _nvlink(ctx: _Ctx, steps: int, volume: float) -> float:
    rate = ctx.fabric.nvlink_bps * ctx.params.nvlink_efficiency
    return steps * ctx.params.nvlink_alpha_s + 8.0 * volume / rate


def _in_host(ctx: _Ctx, groups: np.ndarray) -> bool:
    host = groups // ctx.fabric.gpus_per_host
    return bool((host == host[:, :1]).all())


def collective_time(ctx: _Ctx, groups: np.ndarray, kind: str, nbytes: float, slot: int) -> float:
    """Ring ``kind`` (allreduce | allgather) of ``nbytes`` over every group at once."""
    n = groups.shape[1]
    if n < 2:
        return 0.0
    steps = 2 * (n - 1) if kind == "allreduce" else n - 1
    if _in_host(ctx, groups):
        return _nvlink(ctx, steps, steps * nbytes / n)
    return _ring(ctx, groups, steps, nbytes / n, slot)


def _zone_split(ctx: _Ctx, groups: np.ndarray) -> np.ndarray | None:
    """Groups as [group, zone, member] when every group has m members in each of z zones."""
    zone = groups // ctx.fabric.gpus_per_zone
    order = np.argsort(zone, axis=1, kind="stable")
    g, z = np.take_along_axis(groups, order, 1), np.take_along_axis(zone, order, 1)
    m = int((z[0] == z[0, 0]).sum())
    n = groups.shape[1]
    if m in (0, n) or n % m:
        return None
    zz = z.reshape(len(z), n // m, m)
    if not (zz == zz[:, :, :1]).all() or (np.diff(zz[:, :, 0], axis=1) <= 0).any():
        return None
    return g.reshape(len(g), n // m, m)


def hierarchical_allreduce(ctx: _Ctx, groups: np.ndarray, nbytes: float) -> float | None:
    """Ring ReduceScatter + AllGather inside zones, AllReduce across; None if uneven."""
    split = _zone_split(ctx, groups)
    if split is None:
        return None
    _, z, m = split.shape
    inner = _ring(ctx, split.reshape(-1, m), 2 * (m - 1), nbytes / m, slot=1)
    cols = np.moveaxis(split, 2, 1).reshape(-1, z)  # one member per zone
    part = nbytes / m
    if z & (z - 1):
        return inner + _ring(ctx, cols, 2 * (z - 1), part / z, slot=2)
    across, idx = 0.0, np.arange(z)
    for s in range(z.bit_length() - 1):
        src, dst = cols.ravel(), cols[:, idx ^ (1 << s)].ravel()
        b = link_loads(ctx.fabric, ctx.mode, src, dst, qps=ctx.qps, slot=3 + s, seed=ctx.seed)
        across += 2 * step_time(ctx.params, b.slowdown(), part / 2 ** (s + 1), ctx.fabric.nic_bps)
    return inner + across


def step_axes(
    fabric: ClosFabric,
    d: Degrees,
    sizes: StepBytes,
    sw: Switches,
    params: ModelParams | None = None,
    seed: int = 0,
) -> dict[str, float]:
    """Seconds of each axis (``tp``, ``cp``, ``pp``, ``dp``) and the ``step`` total."""
    mode, qps = ("eecmp", LLAMA3_QPS) if sw.lb else ("ecmp", 1)
    ctx = _Ctx(fabric, params or ModelParams(), mode, qps, seed)
    gpu = rank_gpus(fabric, d, sw, seed)
    out = {
        "tp": collective_time(ctx, axis_groups(gpu, d, "tp"), "allreduce", sizes.tp, 0),
        "cp": collective_time(ctx, axis_groups(gpu, d, "cp"), "allgather", sizes.cp, 4),
        "pp": 0.0,
        "dp": 0.0,
    }
    if d.pp > 1:
        grp = axis_groups(gpu, d, "pp")
        src, dst = grp[:, :-1].ravel(), grp[:, 1:].ravel()
        b = link_loads(fabric, mode, src, dst, qps=qps, slot=5, seed=seed).slowdown()
        out["pp"] = 2 * (d.pp - 1) * step_time(ctx.params, b, sizes.pp / 2, fabric.nic_bps)
    dp_groups = axis_groups(gpu, d, "dp")
    hier = hierarchical_allreduce(ctx, dp_groups, sizes.dp) if sw.collectives else None
    out["dp"] = (
        hier if hier is not None else collective_time(ctx, dp_groups, "allreduce", sizes.dp, 6)
    )
    out["step"] = out["tp"] + out["cp"] + out["pp"] + out["dp"]
    return out


def extrapolate(
    fabric: ClosFabric,
    tp: int,
    cp: int,
    pp: int,
    model: ModelShape,
    params: ModelParams | None = None,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """Axis and step seconds per configuration (:func:`configurations`) on ``fabric``."""
    d = degrees_at(fabric.gpus, tp, cp, pp)
    sizes = step_bytes(model, d)
    return {sw.label(): step_axes(fabric, d, sizes, sw, params, seed) for sw in configurations()}


def job_from_scenario(job: Mapping[str, object]) -> tuple[int, int, int, ModelShape]:
    """TP, CP, PP and the model of a scenario's ``workload.job`` (as a plain mapping)."""
    model = job.get("model") or {}
    if not isinstance(model, Mapping):
        raise UserError("workload.job.model: want a mapping")
    shape = ModelShape(**{k: v for k, v in model.items()})  # type: ignore[arg-type]
    return int(job["tp"]), int(job["cp"]), int(job["pp"]), shape  # type: ignore[call-overload]
