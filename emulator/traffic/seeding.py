"""What the run seed decides, as a real deployment leaves it to chance: QPNs, initial PSNs,
RoCEv2 UDP source ports (by policy) and seeded random streams (placement, timing jitter).

Every value is a pure function of the seed and stable labels (host address, connection id,
QP index), computed with BLAKE2b (never Python's per-process ``hash``), so both ends of a
connection agree without talking, and a run is the same in every process::

    qpn(seed, ip, slot)      keyed 24-bit Feistel permutation of the RNIC's QP slot
                             -> random-looking QPNs, distinct per RNIC (a bijection)
    ipsn(seed, conn, side, i)  random 24-bit initial PSN
    udp_sport(policy, ...)   qpn_hash | per_connection | fixed  (docs/traffic.md cites each)
    rng(seed, *labels)       a random.Random for one purpose (placement, jitter)
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal

from emulator.traffic.roce import PSN_MASK
from emulator.traffic.roce import udp_sport as flow_label_sport

SportPolicy = Literal["qpn_hash", "per_connection", "fixed"]
SPORT_POLICIES: tuple[str, ...] = ("qpn_hash", "per_connection", "fixed")

#: QPN 0 (SMI) and 1 (GSI) are special; 0xFFFFFF is the multicast QPN
_QPN_LO, _QPN_HI = 2, 0xFFFFFF
_HALF = 12
_HALF_MASK = (1 << _HALF) - 1
_ROUNDS = 4


def _h64(*labels: object) -> int:
    """64 bits of BLAKE2b over the labels (stable across processes and Python versions)."""
    text = "\x1f".join(str(x) for x in labels).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def _feistel(x: int, key: str) -> int:
    """A keyed permutation of 0..2^24-1 (balanced Feistel network, 12-bit halves)."""
    left, right = x >> _HALF, x & _HALF_MASK
    for r in range(_ROUNDS):
        left, right = right, left ^ (_h64(key, r, right) & _HALF_MASK)
    return (left << _HALF) | right


def _feistel_inverse(y: int, key: str) -> int:
    """The inverse of :func:`_feistel`."""
    left, right = y >> _HALF, y & _HALF_MASK
    for r in reversed(range(_ROUNDS)):
        left, right = right ^ (_h64(key, r, left) & _HALF_MASK), left
    return (left << _HALF) | right


def qpn(seed: int, ip: str, slot: int) -> int:
    """The QPN an RNIC at ``ip`` gives its QP number ``slot`` in a run with ``seed``.

    A bijection of slots onto 2..0xFFFFFE (cycle-walking the Feistel permutation past the
    reserved QPNs), so distinct slots on one RNIC never share a QPN.
    """
    if not 0 <= slot < _QPN_HI - _QPN_LO:
        raise ValueError(f"QP slot {slot} out of range")
    key = f"qpn:{seed}:{ip}"
    y = _feistel(slot + _QPN_LO, key)
    while not _QPN_LO <= y < _QPN_HI:
        y = _feistel(y, key)
    return y


def qp_slot(seed: int, ip: str, qpn_: int) -> int:
    """The slot whose QPN on the RNIC at ``ip`` is ``qpn_`` (inverse of :func:`qpn`)."""
    if not _QPN_LO <= qpn_ < _QPN_HI:
        raise ValueError(f"QPN {qpn_:#x} is reserved")
    key = f"qpn:{seed}:{ip}"
    x = _feistel_inverse(qpn_, key)
    while not _QPN_LO <= x < _QPN_HI:
        x = _feistel_inverse(x, key)
    return x - _QPN_LO


def ipsn(seed: int, conn_id: int, side: str, index: int) -> int:
    """Initial PSN of QP ``index`` on ``side`` of connection ``conn_id`` (random, 24-bit)."""
    return _h64("ipsn", seed, conn_id, side, index) & PSN_MASK


def fixed_sport(seed: int, ip: str) -> int:
    """The one UDP source port of the RNIC at ``ip`` under the ``fixed`` policy."""
    return 0xC000 | (_h64("sport", seed, ip) & 0x3FFF)


def udp_sport(policy: str, seed: int, ip: str, qp: tuple[int, int], conn: tuple[int, int]) -> int:
    """UDP source port of the QP ``qp`` = (local QPN, remote QPN) of connection ``conn``.

    qpn_hash: per QP, the Linux flow-label hash of the QP pair; per_connection: the same
    hash of the connection's first QP pair for all its QPs; fixed: one value per RNIC.
    """
    if policy == "qpn_hash":
        return flow_label_sport(*qp)
    if policy == "per_connection":
        return flow_label_sport(*conn)
    if policy == "fixed":
        return fixed_sport(seed, ip)
    raise ValueError(f"unknown UDP source-port policy {policy!r} (known: {SPORT_POLICIES})")


def flow_sport(
    policy: str, seed: int, src: tuple[str, int], dst: tuple[str, int], slots: int
) -> int:
    """The UDP source port of data sent from ``src`` = (ip, QPN) to ``dst`` = (ip, QPN).

    What a frame of that flow carries, recomputed from the seed: the connection's first QP
    pair comes from the QP's slot (``slots`` QP slots per connection, control QP first).
    """
    first = qp_slot(seed, src[0], src[1]) // slots * slots
    conn = (qpn(seed, src[0], first), qpn(seed, dst[0], first))
    return udp_sport(policy, seed, src[0], (src[1], dst[1]), conn)


def rng(seed: int, *labels: object) -> random.Random:
    """A random stream for one purpose (``rng(seed, "placement")``), independent of others."""
    return random.Random(_h64("rng", seed, *labels))
