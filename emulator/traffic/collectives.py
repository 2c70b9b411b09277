"""Collective algorithms as per-rank schedules of phases of point-to-point transfers.

A rank runs its phases in order; a phase posts its sends and receives at once and ends when
all its receives have arrived (a ring step starts when the previous step's data is in, as
NCCL's ring does); the rank is done when its last phase ended and all its sends completed.

    ring AllReduce (n ranks, S bytes): 2(n-1) phases, rank r sends segment
      (r - s) mod n to r+1 and receives (r - s - 1) mod n from r-1 (reduce-scatter), then
      the same shape for the all-gather; segments are S/n bytes (remainder spread).
    recursive halving-doubling AllReduce (n = 2^k): k halving phases with partner
      r xor n/2, r xor n/4, ... exchanging half of the current range, then k doubling
      phases in reverse order exchanging the gathered ranges.
    AllToAll: one phase, S/n bytes to and from every other rank.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.errors import UserError


@dataclass(frozen=True)
class Transfer:
    """Send ``nbytes`` to (or receive from) rank ``peer``."""

    peer: int
    nbytes: int


@dataclass(frozen=True)
class Phase:
    """Transfers a rank posts together."""

    sends: tuple[Transfer, ...]
    recvs: tuple[Transfer, ...]


Schedule = list[list[Phase]]  # [rank][phase]

#: nccl-tests bus-bandwidth factor numerators/denominators per collective
ALGORITHMS = ("ring", "halving_doubling", "alltoall")


def _segments(size: int, n: int) -> list[int]:
    base, rem = divmod(size, n)
    return [base + (1 if k < rem else 0) for k in range(n)]


def _check(n: int, size: int) -> None:
    if n < 2:
        raise UserError(f"a collective needs at least 2 ranks, got {n}")
    if size < n:
        raise UserError(f"collective size {size} B is smaller than the {n} ranks")


def ring_allreduce(n: int, size: int) -> Schedule:
    """Ring AllReduce of ``size`` bytes over ``n`` ranks."""
    _check(n, size)
    seg = _segments(size, n)
    sched: Schedule = []
    for r in range(n):
        nxt, prv = (r + 1) % n, (r - 1) % n
        phases = []
        for s in range(n - 1):  # reduce-scatter
            phases.append(
                Phase((Transfer(nxt, seg[(r - s) % n]),), (Transfer(prv, seg[(r - s - 1) % n]),))
            )
        for s in range(n - 1):  # all-gather
            phases.append(
                Phase((Transfer(nxt, seg[(r + 1 - s) % n]),), (Transfer(prv, seg[(r - s) % n]),))
            )
        sched.append(phases)
    return sched


def halving_doubling_allreduce(n: int, size: int) -> Schedule:
    """Recursive halving (reduce-scatter) then doubling (all-gather); ``n`` a power of two."""
    _check(n, size)
    if n & (n - 1):
        raise UserError(f"halving-doubling needs a power-of-two rank count, got {n}")
    sched: Schedule = []
    for r in range(n):
        lo, hi = 0, size
        phases: list[Phase] = []
        kept: list[tuple[int, int, int]] = []  # (partner, my range size, partner range size)
        d = n // 2
        while d >= 1:
            partner = r ^ d
            mid = (lo + hi) // 2
            if r & d:
                give, lo = mid - lo, mid
            else:
                give, hi = hi - mid, mid
            keep = hi - lo
            phases.append(Phase((Transfer(partner, give),), (Transfer(partner, keep),)))
            kept.append((partner, keep, give))
            d //= 2
        for partner, mine, theirs in reversed(kept):
            phases.append(Phase((Transfer(partner, mine),), (Transfer(partner, theirs),)))
        sched.append(phases)
    return sched


def allreduce_half(algorithm: str, n: int, size: int, half: str) -> Schedule:
    """ReduceScatter (``half="reducescatter"``) or AllGather (``"allgather"``) of ``size`` bytes.

    The first or second half of ``algorithm``'s AllReduce phases: a ReduceScatter leaves
    rank r with its reduced segment, an AllGather of the segments gives everyone all of it.
    """
    if half not in ("reducescatter", "allgather"):
        raise UserError(f"unknown AllReduce half {half!r} (reducescatter, allgather)")
    if algorithm not in ("ring", "halving_doubling"):
        raise UserError(f"unknown {half} algorithm {algorithm!r} (ring, halving_doubling)")
    full = schedule(algorithm, n, size)
    k = len(full[0]) // 2
    return [phases[:k] if half == "reducescatter" else phases[k:] for phases in full]


def alltoall(n: int, size: int) -> Schedule:
    """AllToAll: every rank sends ``size / n`` bytes to every other rank."""
    _check(n, size)
    seg = _segments(size, n)
    return [
        [
            Phase(
                tuple(Transfer(p, seg[p]) for p in range(n) if p != r),
                tuple(Transfer(p, seg[r]) for p in range(n) if p != r),
            )
        ]
        for r in range(n)
    ]


def busbw_factor(collective: str, n: int) -> float:
    """nccl-tests bus bandwidth factor: busbw = algbw * factor."""
    if collective == "allreduce":
        return 2 * (n - 1) / n
    if collective in ("alltoall", "allgather", "reducescatter"):
        return (n - 1) / n
    if collective in ("sendrecv", "incast", "fat_flows", "broadcast", "reduce"):
        return 1.0
    raise UserError(f"unknown collective {collective!r}")


def schedule(algorithm: str, n: int, size: int) -> Schedule:
    """The schedule of ``algorithm`` (one of :data:`ALGORITHMS`)."""
    if algorithm == "ring":
        return ring_allreduce(n, size)
    if algorithm == "halving_doubling":
        return halving_doubling_allreduce(n, size)
    if algorithm == "alltoall":
        return alltoall(n, size)
    raise UserError(f"unknown collective algorithm {algorithm!r} (known: {', '.join(ALGORITHMS)})")
