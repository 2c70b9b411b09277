"""One training step as a sequence of stages: what each parallelism axis sends, and when.

A step runs its stages in dependency order, each stage starting when the previous one
ended everywhere (a barrier: the step's critical path, no overlap between stages)::

    [compute] -> tp_fwd -> cp -> pp_fwd[0..PP-2] -> pp_bwd[PP-2..0] -> tp_bwd -> dp

A stage is a set of fabric workloads that run at once (one collective per group of the
axis, ``emulator.traffic.workloads`` mappings) and/or a local time: collectives whose group
sits inside one server go over NVLink, modelled as a fixed-rate stage off the fabric
(ring volume / ``nvlink_bps``). Collective algorithm per axis: ``ring``,
``halving_doubling`` or ``hierarchical`` (reduce inside each zone -- or rack -- first, then
across, then gather back; flat ring when the group does not split evenly).

Per-rank bytes per step from a model's shape (Megatron-style, bf16; the assumptions are in
docs/training.md), multiplied by ``scale`` (the topology's ``rate_scale`` keeps emulated
times equal to real ones)::

    act = micro_batch * seq_len * hidden * bytes          activations at a layer boundary
    TP  AllReduce  4 * layers/PP * micro_batches * act/CP  (2 forward + 2 backward per layer)
    CP  AllGather  2 * layers/PP * micro_batches * act/TP  (K and V of the whole sequence)
    PP  send       2 * micro_batches * act/(TP*CP)         (activations fwd, gradients bwd)
    DP  AllReduce  params/(TP*PP) * bytes                  (this rank's gradients)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from emulator.errors import UserError
from emulator.traffic.mapping import Degrees, Gpu, spans, split_by
from emulator.traffic.workloads import workload_from_dict

ALGORITHMS = ("ring", "halving_doubling", "hierarchical")
DP_COLLECTIVES = ("allreduce", "reducescatter_allgather")
#: ring volume factor per collective: bytes each rank sends per byte of the collective
_VOLUME = {"allreduce": lambda n: 2 * (n - 1) / n, "allgather": lambda n: (n - 1) / n}
_VOLUME["reducescatter"] = _VOLUME["allgather"]


@dataclass(frozen=True)
class ModelShape:
    """The model and batch a step's message sizes derive from (default: Llama-3-8B-like)."""

    params: float = 8e9
    layers: int = 32
    hidden: int = 4096
    seq_len: int = 8192
    micro_batch: int = 1
    micro_batches: int = 8
    bytes_per_value: int = 2


@dataclass(frozen=True)
class StepBytes:
    """Bytes per rank per step of each axis' collective (already scaled)."""

    tp: int
    cp: int
    pp: int
    dp: int


def step_bytes(model: ModelShape, d: Degrees, scale: float = 1.0) -> StepBytes:
    """Per-rank bytes per step of each axis (see the module docstring), times ``scale``."""
    act = model.micro_batch * model.seq_len * model.hidden * model.bytes_per_value
    layers = model.layers / d.pp
    mb = model.micro_batches
    raw = (
        4 * layers * mb * act / d.cp,
        2 * layers * mb * act / d.tp,
        2 * mb * act / (d.tp * d.cp),
        model.params / (d.tp * d.pp) * model.bytes_per_value,
    )
    return StepBytes(*(max(1, round(v * scale)) for v in raw))


@dataclass(frozen=True)
class Stage:
    """Fabric workloads run at once and/or a local (NVLink or compute) time."""

    axis: str  # tp | cp | pp | dp | compute
    name: str
    workloads: tuple[Mapping[str, Any], ...] = ()
    local_ns: int = 0
    cross_zone_bytes: int = 0  # payload the workloads send between zones


@dataclass(frozen=True)
class StepJob:
    """A placed and mapped job: everything a step's stages depend on."""

    degrees: Degrees
    gpu_of: tuple[Gpu, ...]  # rank -> GPU
    gpus_per_server: int
    sizes: StepBytes
    algorithms: Mapping[str, str] = field(default_factory=dict)  # axis -> algorithm
    dp_collective: str = "allreduce"
    num_qps: int = 1
    nvlink_bps: float = 90e6  # 3.6 Tb/s scaled as the fabric's 400 Gb/s -> 10 Mb/s
    compute_ns: int = 0

    def algorithm(self, axis: str) -> str:
        """The collective algorithm of ``axis`` (ring unless set)."""
        return self.algorithms.get(axis, "ring")


def check_job(job: StepJob) -> None:
    """Raise UserError (naming the key) for algorithms the group sizes cannot run."""
    for axis, algo in job.algorithms.items():
        if algo not in ALGORITHMS:
            raise UserError(f"algorithms.{axis}: unknown {algo!r} (known: {', '.join(ALGORITHMS)})")
        n = getattr(job.degrees, axis)
        if algo == "halving_doubling" and n & (n - 1):
            raise UserError(
                f"algorithms.{axis}: halving_doubling needs a power-of-two degree, got {axis}={n}"
            )
    if job.dp_collective not in DP_COLLECTIVES:
        raise UserError(
            f"dp_collective: unknown {job.dp_collective!r} ({', '.join(DP_COLLECTIVES)})"
        )
    if len(job.gpu_of) != job.degrees.ranks:
        raise UserError(f"{len(job.gpu_of)} GPUs for {job.degrees.ranks} ranks")


def plan_step(job: StepJob) -> list[Stage]:
    """The stages of one training step, in dependency order."""
    check_job(job)
    d, b = job.degrees, job.sizes
    out: list[Stage] = []
    if job.compute_ns:
        out.append(Stage("compute", "compute", local_ns=job.compute_ns))
    half_tp = max(1, b.tp // 2)
    if d.tp > 1:
        out += collective(job, "tp", "tp_fwd", "allreduce", d.groups("tp"), half_tp)
    if d.cp > 1:
        out += collective(job, "cp", "cp", "allgather", d.groups("cp"), b.cp)
    if d.pp > 1:
        half_pp = max(1, b.pp // 2)
        hops = list(range(d.pp - 1))
        out += [pp_hop(job, s, s + 1, half_pp, f"pp_fwd{s}") for s in hops]
        out += [pp_hop(job, s + 1, s, half_pp, f"pp_bwd{s}") for s in reversed(hops)]
    if d.tp > 1:
        out += collective(job, "tp", "tp_bwd", "allreduce", d.groups("tp"), half_tp)
    if d.dp > 1:
        groups = d.groups("dp")
        if job.dp_collective == "allreduce":
            out += collective(job, "dp", "dp", "allreduce", groups, b.dp)
        else:
            out += collective(job, "dp", "dp_rs", "reducescatter", groups, b.dp)
            out += collective(job, "dp", "dp_ag", "allgather", groups, b.dp)
    return out


def _hosts(job: StepJob, ranks: Sequence[int]) -> list[str]:
    return [job.gpu_of[r].host for r in ranks]


def _nvlink_ns(job: StepJob, kind: str, n: int, size: int) -> int:
    """Time of a ring ``kind`` of ``size`` bytes over ``n`` GPUs of one server."""
    return math.ceil(_VOLUME[kind](n) * size * 8 / job.nvlink_bps * 1e9)


def stage(
    job: StepJob, axis: str, name: str, workloads: Sequence[Mapping[str, Any]], local_ns: int = 0
) -> Stage:
    """A Stage with its planned cross-zone bytes."""
    return Stage(axis, name, tuple(workloads), local_ns, cross_zone(job, workloads))


def collective(
    job: StepJob, axis: str, name: str, kind: str, groups: Sequence[Sequence[int]], size: int
) -> list[Stage]:
    """Stages of one collective per group: NVLink inside a server, the fabric otherwise."""
    g = job.gpus_per_server
    local = [grp for grp in groups if spans(job.gpu_of, grp, "server", g) == 1]
    fabric = [grp for grp in groups if spans(job.gpu_of, grp, "server", g) > 1]
    local_ns = max((_nvlink_ns(job, kind, len(grp), size) for grp in local), default=0)
    algo = job.algorithm(axis)
    if not fabric:
        return [Stage(axis, name, local_ns=local_ns)]
    if algo == "hierarchical":
        parts = _hierarchical(job, fabric, kind, size)
        if parts:
            first, *rest = parts
            return [stage(job, axis, f"{name}_{first[0]}", first[1], local_ns)] + [
                stage(job, axis, f"{name}_{step}", ws) for step, ws in rest
            ]
        algo = "ring"
    return [stage(job, axis, name, [_groups_workload(job, kind, algo, fabric, size)], local_ns)]


def _groups_workload(
    job: StepJob, kind: str, algo: str, groups: Sequence[Sequence[int]], size: int
) -> dict[str, Any]:
    return {
        "kind": kind,
        "algorithm": algo,
        "groups": [_hosts(job, grp) for grp in groups],
        "size_bytes": max(size, max(len(grp) for grp in groups)),
        "num_qps": job.num_qps,
    }


def _hierarchical(
    job: StepJob, groups: Sequence[Sequence[int]], kind: str, size: int
) -> list[tuple[str, list[dict[str, Any]]]] | None:
    """Inside-then-across sub-steps, or None when a group does not split evenly.

    AllReduce: ReduceScatter inside, AllReduce across (of size/m), AllGather inside.
    AllGather: across (size/m), then inside. ReduceScatter: inside, then across (size/m).
    """
    inner: list[list[int]] = []
    across: list[list[int]] = []
    shapes = set()
    for grp in groups:
        level = "zone" if spans(job.gpu_of, grp, "zone", job.gpus_per_server) > 1 else "rack"
        subs = split_by(job.gpu_of, grp, level, job.gpus_per_server)
        shapes.add((len(subs), len(subs[0])))
        if len(subs) < 2 or any(len(s) != len(subs[0]) for s in subs):
            return None
        inner += [s for s in subs if len(s) > 1]
        across += [[s[i] for s in subs] for i in range(len(subs[0]))]
    if len(shapes) != 1:
        return None
    part = max(1, size // next(iter(shapes))[1])

    def algo(grps: Sequence[Sequence[int]]) -> str:
        return "halving_doubling" if all(_pow2(len(g)) for g in grps) else "ring"

    def step(name: str, k: str, grps: list[list[int]], nbytes: int) -> list[tuple[str, Any]]:
        if not grps:
            return []
        return [(name, [_groups_workload(job, k, algo(grps), grps, nbytes)])]

    if kind == "allreduce":
        return (
            step("inner_rs", "reducescatter", inner, size)
            + step("across", "allreduce", across, part)
            + step("inner_ag", "allgather", inner, size)
        )
    if kind == "allgather":
        return step("across", "allgather", across, part) + step("inner", "allgather", inner, size)
    return step("inner", "reducescatter", inner, size) + step(
        "across", "reducescatter", across, part
    )


def _pow2(n: int) -> bool:
    return n >= 1 and not n & (n - 1)


def pp_hop(job: StepJob, src_stage: int, dst_stage: int, size: int, name: str) -> Stage:
    """Activations (or their gradients) from pipeline stage ``src_stage`` to ``dst_stage``."""
    d = job.degrees
    pairs: list[list[str]] = []
    local = 0
    for r in range(d.ranks):
        t, c, p, dp = d.coords(r)
        if p != src_stage:
            continue
        peer = d.rank((t, c, dst_stage, dp))
        if spans(job.gpu_of, (r, peer), "server", job.gpus_per_server) == 1:
            local = math.ceil(size * 8 / job.nvlink_bps * 1e9)
        else:
            pairs.append(_hosts(job, (r, peer)))
    if not pairs:
        return Stage("pp", name, local_ns=local)
    w = {"kind": "fat_flows", "pairs": pairs, "size_bytes": size, "num_qps": job.num_qps}
    return stage(job, "pp", name, [w], local)


def cross_zone(job: StepJob, workloads: Sequence[Mapping[str, Any]]) -> int:
    """Payload bytes the ``workloads`` send from one zone to another."""
    zone = {g.host: g.zone for g in job.gpu_of}
    total = 0
    for m in workloads:
        w = workload_from_dict(m)
        for r, phases in enumerate(w.schedule):
            for ph in phases:
                for t in ph.sends:
                    if zone[w.hosts[r]] != zone[w.hosts[t.peer]]:
                        total += t.nbytes
    return total
