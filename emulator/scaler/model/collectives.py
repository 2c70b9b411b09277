"""Traffic of one collective under a job placement, as a list of network phases.

AllReduce is hierarchical (what NCCL does on 8-GPU hosts)::

    NVLink reduce-scatter inside each host  ->  inter-host AllReduce of M/8 on 8 rails
    (GPU l of host j talks to GPU l of its peers: ring or halving-doubling)  ->
    NVLink all-gather inside each host

AllToAll is pairwise exchange: shift ``p`` sends rank ``i -> i+p``; the scaler evaluates
a seeded sample of shifts and weights each by ``(N-1)/samples``.  A *phase* is one traffic
pattern (src/dst GPU arrays) and how many sequential steps reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from emulator.errors import UserError
from emulator.scaler.model.fabric import ClosFabric

COLLECTIVES = ("ring", "hd", "alltoall")
PLACEMENTS = ("packed", "spread")


@dataclass(frozen=True)
class Phase:
    """``steps`` sequential steps, each sending ``bytes_per_conn`` on every (src, dst) pair."""

    src: np.ndarray
    dst: np.ndarray
    slot: int
    bytes_per_conn: float
    steps: float


@dataclass(frozen=True)
class CollectivePlan:
    """Network phases plus the intra-host NVLink stage of one collective."""

    collective: str
    gpus: int
    message_bytes: float
    phases: tuple[Phase, ...]
    nvlink_bytes: float  # bytes each GPU moves over NVLink
    nvlink_steps: int

    @property
    def bus_factor(self) -> float:
        """busbw = algbw * factor (NCCL's convention)."""
        n = self.gpus
        if self.collective == "alltoall":
            return (n - 1) / n
        return 2 * (n - 1) / n


def place_hosts(fabric: ClosFabric, job_gpus: int, placement: str, seed: int) -> np.ndarray:
    """Physical host of every host-rank of a job: packed (first hosts) or spread (random)."""
    if placement not in PLACEMENTS:
        raise UserError(f"placement {placement!r}: expected one of {', '.join(PLACEMENTS)}")
    if job_gpus % fabric.gpus_per_host or not 0 < job_gpus <= fabric.gpus:
        raise UserError(
            f"job of {job_gpus} GPUs must be a positive multiple of {fabric.gpus_per_host} "
            f"and at most the fabric's {fabric.gpus}"
        )
    hosts = job_gpus // fabric.gpus_per_host
    if placement == "packed":
        return np.arange(hosts, dtype=np.int64)
    rng = np.random.default_rng([seed, 0x5EED])
    return rng.permutation(fabric.hosts)[:hosts].astype(np.int64)


def _rails(
    fabric: ClosFabric, host_src: np.ndarray, host_dst: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    g = fabric.gpus_per_host
    lane = np.arange(g, dtype=np.int64)
    src = (host_src[:, None] * g + lane[None, :]).ravel()
    dst = (host_dst[:, None] * g + lane[None, :]).ravel()
    return src, dst


def plan_collective(
    fabric: ClosFabric,
    collective: str,
    message_bytes: float,
    placement: str = "packed",
    job_gpus: int | None = None,
    seed: int = 0,
    alltoall_samples: int = 8,
) -> CollectivePlan:
    """Phases of ``collective`` over ``message_bytes`` per GPU for a job on ``fabric``."""
    if collective not in COLLECTIVES:
        raise UserError(f"collective {collective!r}: expected one of {', '.join(COLLECTIVES)}")
    if message_bytes <= 0:
        raise UserError(f"message size must be > 0 bytes, got {message_bytes}")
    job = fabric.gpus if job_gpus is None else job_gpus
    phys = place_hosts(fabric, job, placement, seed)
    g = fabric.gpus_per_host
    hosts = len(phys)
    if collective == "alltoall":
        return _alltoall(fabric, phys, message_bytes, seed, alltoall_samples)
    shard = message_bytes / g
    phases: list[Phase] = []
    if hosts > 1 and collective == "ring":
        src, dst = _rails(fabric, phys, np.roll(phys, -1))
        phases.append(Phase(src, dst, 0, shard / hosts, 2 * (hosts - 1)))
    elif hosts > 1:
        phases.extend(_halving_doubling(fabric, phys, shard))
    return CollectivePlan(
        collective, job, message_bytes, tuple(phases), 2 * (g - 1) / g * message_bytes, 2 * (g - 1)
    )


def _halving_doubling(fabric: ClosFabric, phys: np.ndarray, shard: float) -> list[Phase]:
    """Rabenseifner: fold the excess hosts in, recursive halving + doubling, unfold."""
    hosts = len(phys)
    levels = hosts.bit_length() - 1
    core = 1 << levels
    phases: list[Phase] = []
    if core < hosts:
        extra = np.arange(core, hosts)
        src, dst = _rails(fabric, phys[extra], phys[extra - core])
        # fold the excess hosts in before, and unfold after: one full-shard step each
        phases.append(Phase(src, dst, levels, shard, 1))
        phases.append(Phase(dst, src, levels + 1, shard, 1))
    ranks = np.arange(core)
    for s in range(levels):
        src, dst = _rails(fabric, phys[ranks], phys[ranks ^ (1 << s)])
        # reduce-scatter step s and the mirror all-gather step move the same bytes
        phases.append(Phase(src, dst, s, shard / 2 ** (s + 1), 2))
    return phases


def _alltoall(
    fabric: ClosFabric, phys: np.ndarray, message_bytes: float, seed: int, samples: int
) -> CollectivePlan:
    g = fabric.gpus_per_host
    n = len(phys) * g
    gpu_of_rank = (phys[:, None] * g + np.arange(g)[None, :]).ravel()
    rng = np.random.default_rng([seed, 0xA2A])
    shifts = np.arange(1, n)
    if len(shifts) > samples:
        shifts = np.sort(rng.choice(shifts, size=samples, replace=False))
    weight = (n - 1) / len(shifts)
    ranks = np.arange(n)
    phases = []
    for p in shifts:
        peer = (ranks + p) % n
        cross = ranks // g != peer // g
        if cross.any():
            phases.append(
                Phase(
                    gpu_of_rank[ranks[cross]],
                    gpu_of_rank[peer[cross]],
                    int(p),
                    message_bytes / n,
                    weight,
                )
            )
    intra = (g - 1) / n * message_bytes
    return CollectivePlan("alltoall", n, message_bytes, tuple(phases), intra, 1)
