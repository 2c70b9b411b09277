"""Parallelism groups of a training job, job placement across zones and rank-to-GPU mapping.

Pure functions, no runtime: which GPUs a job gets (``min_cut`` or ``random`` placement) and
which rank runs on which GPU (``topology_aware``, ``naive`` or ``random`` mapping).

Ranks are numbered in Llama 3's order [TP, CP, PP, DP]: TP changes fastest,
``rank = tp + TP * (cp + CP * (pp + PP * dp))``. A *server* is ``gpus_per_server``
consecutive GPUs of one rack (its NVLink domain: one fabemu host is one GPU with one RNIC).

    topology_aware  ranks in [TP, CP, PP, DP] order on the job's GPUs sorted by
                    (zone, rack, gpu): TP inside a server, CP/PP inside a rack or zone,
                    DP outermost (across racks and zones)
    naive           rank order without topology knowledge: ranks numbered DP-fastest
                    ([DP, PP, CP, TP], as a launcher that hands out data-parallel replicas
                    first) on the GPUs in allocation order -- an assumption, see docs/training.md
    random          a seeded permutation of ranks over the job's GPUs

    min_cut         whole servers, filling as few zones (then racks) as possible
    random          whole servers drawn at random (seeded) from the whole cluster
"""

from __future__ import annotations

import random as _random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.errors import UserError

AXES = ("tp", "cp", "pp", "dp")
MAPPINGS = ("topology_aware", "naive", "random")
PLACEMENTS = ("min_cut", "random")
LEVELS = ("server", "rack", "zone")


@dataclass(frozen=True)
class Degrees:
    """Parallelism degrees of a job, in Llama 3's order [TP, CP, PP, DP]."""

    tp: int = 1
    cp: int = 1
    pp: int = 1
    dp: int = 1

    def __post_init__(self) -> None:
        for axis in AXES:
            if getattr(self, axis) < 1:
                raise UserError(f"{axis}: want a degree >= 1, got {getattr(self, axis)}")

    @property
    def sizes(self) -> tuple[int, int, int, int]:
        """(TP, CP, PP, DP)."""
        return (self.tp, self.cp, self.pp, self.dp)

    @property
    def ranks(self) -> int:
        """TP * CP * PP * DP."""
        return self.tp * self.cp * self.pp * self.dp

    def coords(self, rank: int) -> tuple[int, int, int, int]:
        """(tp, cp, pp, dp) coordinates of ``rank`` (TP fastest)."""
        out = []
        for size in self.sizes:
            rank, c = divmod(rank, size)
            out.append(c)
        return (out[0], out[1], out[2], out[3])

    def rank(self, coords: Sequence[int]) -> int:
        """The rank at ``coords`` (tp, cp, pp, dp)."""
        r = 0
        for c, size in zip(reversed(coords), reversed(self.sizes)):
            r = r * size + c
        return r

    def groups(self, axis: str) -> list[tuple[int, ...]]:
        """The rank groups of ``axis``, each ordered by its coordinate on that axis."""
        k = AXES.index(axis)
        out: dict[tuple[int, ...], list[int]] = {}
        for r in range(self.ranks):
            c = self.coords(r)
            out.setdefault(c[:k] + c[k + 1 :], []).append(r)
        return [tuple(g) for g in out.values()]


@dataclass(frozen=True)
class Gpu:
    """One GPU of the cluster: its fabemu host, zone, rack (within the zone), index in rack."""

    host: str
    zone: int
    rack: int
    index: int

    def where(self, level: str, gpus_per_server: int) -> tuple[int, ...]:
        """The server, rack or zone this GPU sits in (a comparable key)."""
        if level == "zone":
            return (self.zone,)
        if level == "rack":
            return (self.zone, self.rack)
        if level == "server":
            return (self.zone, self.rack, self.index // gpus_per_server)
        raise UserError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")


def gpus_of(hosts: Iterable[Any]) -> list[Gpu]:
    """GPUs of a resolved topology's hosts (duck-typed: name, zone, rack, gpu)."""
    return [Gpu(h.name, int(h.zone), int(h.rack), int(h.gpu)) for h in hosts]


def servers(gpus: Sequence[Gpu], gpus_per_server: int) -> list[tuple[Gpu, ...]]:
    """The cluster's servers in topology order (``gpus_per_server`` GPUs of one rack each)."""
    out: dict[tuple[int, ...], list[Gpu]] = {}
    for g in sorted(gpus, key=lambda g: (g.zone, g.rack, g.index)):
        out.setdefault(g.where("server", gpus_per_server), []).append(g)
    return [tuple(s) for s in out.values()]


def place_job(
    gpus: Sequence[Gpu], ranks: int, gpus_per_server: int, policy: str, seed: int = 0
) -> list[Gpu]:
    """The ``ranks`` GPUs a job gets, in allocation order (whole servers, last one partial)."""
    if policy not in PLACEMENTS:
        raise UserError(f"unknown placement {policy!r} (known: {', '.join(PLACEMENTS)})")
    if gpus_per_server < 1:
        raise UserError(f"gpus_per_server: want >= 1, got {gpus_per_server}")
    if ranks > len(gpus):
        raise UserError(f"a job of {ranks} ranks does not fit the {len(gpus)} GPUs")
    pool = servers(gpus, gpus_per_server)
    if policy == "random":
        pool = _random.Random(seed).sample(pool, len(pool))
    else:  # min_cut: the fullest zones first (all equal on an empty cluster: topology order)
        size = {z: sum(len(s) for s in pool if s[0].zone == z) for z in {s[0].zone for s in pool}}
        pool = sorted(pool, key=lambda s: (-size[s[0].zone], s[0].zone, s[0].rack, s[0].index))
    alloc = [g for s in pool for g in s]
    return alloc[:ranks]


def map_ranks(alloc: Sequence[Gpu], degrees: Degrees, policy: str, seed: int = 0) -> list[Gpu]:
    """The GPU of each rank (index = rank) on the job's GPUs ``alloc``."""
    n = degrees.ranks
    if len(alloc) != n:
        raise UserError(f"{len(alloc)} GPUs for a job of {n} ranks")
    if policy == "topology_aware":
        return sorted(alloc, key=lambda g: (g.zone, g.rack, g.index))
    if policy == "naive":
        out = []
        _tp, cp, pp, dp = degrees.sizes
        for r in range(n):
            t, c, p, d = degrees.coords(r)
            out.append(alloc[d + dp * (p + pp * (c + cp * t))])
        return out
    if policy == "random":
        return _random.Random(seed).sample(list(alloc), n)
    raise UserError(f"unknown mapping {policy!r} (known: {', '.join(MAPPINGS)})")


def spans(gpu_of: Sequence[Gpu], group: Sequence[int], level: str, gpus_per_server: int) -> int:
    """How many servers, racks or zones the ranks of ``group`` occupy."""
    return len({gpu_of[r].where(level, gpus_per_server) for r in group})


def split_by(
    gpu_of: Sequence[Gpu], group: Sequence[int], level: str, gpus_per_server: int
) -> list[list[int]]:
    """``group`` split into sub-groups sharing a server, rack or zone (order kept)."""
    out: dict[tuple[int, ...], list[int]] = {}
    for r in group:
        out.setdefault(gpu_of[r].where(level, gpus_per_server), []).append(r)
    return list(out.values())
