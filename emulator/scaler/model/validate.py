"""Reproductions of published figures, each next to the model's number and the difference.

* birthday bound: k flows on n links never collide with probability n!/((n-k)! n^k);
* 5-tuple ECMP puts 1000 flows on 16 links with max/mean load of about 1.2;
* Meta (SIGCOMM 2024): E-ECMP with QP scaling improved AllReduce by up to ~40% over
  baseline ECMP.  The model's gain depends on scale and NCCL channel count; the scenario
  pinned here (``MetaGainScenario``) is stated in docs/scaler.md with its error.

The balls-into-bins checks hash generated RoCEv2 flow keys with the switch program's real
CRC (not a random number generator), so they also test that the hash spreads like a uniform
one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from emulator.scaler.model import ballsbins
from emulator.scaler.model.collectives import plan_collective
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.flowkeys import flow_keys
from emulator.scaler.model.routing import LAYER_HASH, lb_hash
from emulator.scaler.model.timing import evaluate

PUBLISHED_MAX_OVER_MEAN = 1.2
PUBLISHED_EECMP_GAIN = 0.40


def random_flow_buckets(m: int, n: int, trials: int, seed: int) -> np.ndarray:
    """``trials`` x ``m`` link indices: RTSW crc16 of random RoCEv2 flows modulo ``n``."""
    fabric = meta_fabric(24_576)
    rng = np.random.default_rng([seed, 0xB1B])
    src = rng.integers(0, fabric.gpus, size=trials * m)
    dst = (src + rng.integers(1, fabric.gpus, size=trials * m)) % fabric.gpus
    keys = flow_keys(
        fabric, src, dst, slot=rng.integers(0, 64, size=trials * m), qp=0, qps=1, seed=seed
    )
    return (lb_hash(LAYER_HASH["leaf"], keys.rows(with_qp=False)) % n).reshape(trials, m)


@dataclass(frozen=True)
class Check:
    """One reproduced figure: published value, closed form, measured (hashed) value."""

    name: str
    published: float
    closed_form: float | None
    measured: float
    trials: int

    @property
    def diff_vs_published(self) -> float:
        """measured - published."""
        return self.measured - self.published

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {**asdict(self), "diff_vs_published": self.diff_vs_published}


def no_collision(k: int = 8, n: int = 16, trials: int = 4000, seed: int = 0) -> Check:
    """Fraction of trials where ``k`` hashed flows use ``k`` distinct links of ``n``."""
    buckets = random_flow_buckets(k, n, trials, seed)
    distinct = np.array([len(np.unique(row)) == k for row in buckets])
    p = ballsbins.p_no_collision(k, n)
    return Check(f"P(no collision) k={k} n={n}", p, p, float(distinct.mean()), trials)


def max_over_mean(m: int = 1000, n: int = 16, trials: int = 400, seed: int = 0) -> Check:
    """Mean over trials of (max link load / mean link load) for ``m`` flows on ``n`` links."""
    buckets = random_flow_buckets(m, n, trials, seed)
    counts = np.stack([np.bincount(row, minlength=n) for row in buckets])
    measured = float((counts.max(axis=1) / (m / n)).mean())
    closed = ballsbins.expected_max_load(m, n) / (m / n)
    return Check(
        f"max/mean {m} flows on {n} links", PUBLISHED_MAX_OVER_MEAN, closed, measured, trials
    )


@dataclass(frozen=True)
class MetaGainScenario:
    """The setting in which the model is compared with Meta's "+40% AllReduce"."""

    gpus: int = 1024  # a job packed in one AI Zone (16 uplinks per 16-GPU RTSW)
    collective: str = "ring"  # NCCL's large-message AllReduce
    message_bytes: float = float(2**30)
    channels: int = 4  # NCCL channels per NIC (32 channels over 8 NICs)
    qps: int = 16  # E-ECMP QP scaling: QPs per channel
    seeds: int = 8


def eecmp_gain(scenario: MetaGainScenario | None = None) -> Check:
    """AllReduce busbw gain of E-ECMP + QP scaling over 5-tuple ECMP, mean over seeds."""
    sc = scenario or MetaGainScenario()
    fabric = meta_fabric(sc.gpus)
    gains = []
    for seed in range(sc.seeds):
        plan = plan_collective(fabric, sc.collective, sc.message_bytes, "packed", seed=seed)
        base = evaluate(fabric, plan, "ecmp", qps=1, seed=seed, channels=sc.channels)
        enh = evaluate(fabric, plan, "eecmp", qps=sc.qps, seed=seed, channels=sc.channels)
        gains.append(enh.busbw_gbps / base.busbw_gbps - 1.0)
    return Check(
        "E-ECMP+QP gain over ECMP (AllReduce busbw)",
        PUBLISHED_EECMP_GAIN,
        None,
        float(np.mean(gains)),
        sc.seeds,
    )


def all_checks(quick: bool = False) -> list[Check]:
    """Every reproduction (``quick`` uses fewer trials)."""
    f = 4 if quick else 1
    return [
        no_collision(8, 16, trials=4000 // f),
        no_collision(4, 16, trials=4000 // f),
        max_over_mean(1000, 16, trials=400 // f),
        eecmp_gain(MetaGainScenario(seeds=8 // f)),
    ]
