"""The flagship as distributions over fixed seeds, checked against the maths.

ECMP + 1 QP: each of the 4 rack-0 -> rack-1 flows takes the leaf uplink chosen by the CRC
of its 5-tuple; the seed draws the UDP source port (``fixed``, the flagship's policy: one
random port per RNIC; ``qpn_hash``: from the random QPNs). The pairing is fixed, so the
source port is the only thing that varies between seeds, and each flow has its own. Two
preconditions make "4 independent uniform choices" true, and are tested first at the hash
level over many seeds (cheap, no network): each flow's uplink is uniform, and two flows'
uplinks are independent. Then the measured runs must agree with 4!/4^4 = 9.375%.

Tolerances: fixed seeds 1..N, so every test is deterministic; the statistical statements
are exact tests at level 0.01 (chi-square for uniformity and independence, two-sided
binomial for the collision probability) plus the 95% Clopper-Pearson interval covering
9.375%.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from pathlib import Path

import pytest
from scipy import stats

from emulator.control import FabricConfig, FabricController
from emulator.scenario.distributions import (
    binomial_pvalue,
    no_collision_probability,
    proportion_ci,
)
from emulator.scenario.runner import run_scenario
from emulator.target.hashes import v1model_hash
from emulator.topology import load_clos, resolve
from emulator.traffic.connection import ConnSpec
from emulator.traffic.seeding import udp_sport

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision.yaml"
PAIRS = [("h0", "h4"), ("h1", "h5"), ("h2", "h6"), ("h3", "h7")]
LEVEL = 0.01
RUNS = 100  # seeds 1..100 of the measured test (~0.2 s each at 16 KiB per flow)
SMALL = {"workload.size_bytes": 16384, "duration_ms": 1000}


def _uplink(
    ctl: FabricController, ips: dict[str, str], pair: tuple[str, str], seed: int, policy: str
) -> int:
    """rtsw0's selector member index for the flagship's 1-QP flow ``pair`` at ``seed``."""
    src, dst = pair
    spec = ConnSpec(PAIRS.index(pair), ips[src], ips[dst], 1, seed)
    a, b = spec.qpns("a"), spec.qpns("b")
    sport = udp_sport(policy, seed, ips[src], (a[1], b[1]), (a[0], b[0]))
    fields = [
        (int(ipaddress.IPv4Address(ips[src])), 32),
        (int(ipaddress.IPv4Address(ips[dst])), 32),
        (17, 8),
        (sport, 16),
        (4791, 16),
    ]
    n = len(ctl.selection("rtsw0", "10.0.1.0/24"))
    return v1model_hash("crc16", fields, 0, 65536) % n


@pytest.mark.parametrize("policy", ["fixed", "qpn_hash"])
def test_hash_level_choices_are_uniform_and_independent(policy: str) -> None:
    topo = resolve(load_clos(ROOT / "topologies" / "two_rack_4spine.yaml"))
    ctl = FabricController(topo, FabricConfig(lb_mode="ecmp"))
    ips = {h.name: h.ip for h in topo.hosts}
    seeds = range(1, 2001)
    first = [_uplink(ctl, ips, PAIRS[0], s, policy) for s in seeds]
    second = [_uplink(ctl, ips, PAIRS[1], s, policy) for s in seeds]
    counts = Counter(first)
    assert sorted(counts) == [0, 1, 2, 3]
    assert stats.chisquare([counts[i] for i in range(4)]).pvalue > LEVEL  # uniform
    table = [
        [sum(1 for x, y in zip(first, second) if (x, y) == (i, j)) for j in range(4)]
        for i in range(4)
    ]
    assert stats.chi2_contingency(table).pvalue > LEVEL  # independent


def _collided(seed: int, tmp: Path, **over: object) -> float:
    out = run_scenario(
        FLAGSHIP, {**SMALL, "seed": seed, **over}, runtime="virtual", out=tmp / f"s{seed}",
        report=False,
    )  # fmt: skip
    assert out.metrics["completed"] == 1 and out.metrics["drops"] == 0
    return out.metrics["collided"]


@pytest.mark.slow
def test_ecmp_one_qp_no_collision_probability_is_4_factorial_over_4_to_the_4(
    tmp_path: Path,
) -> None:
    flags = [_collided(s, tmp_path) for s in range(1, RUNS + 1)]
    free = sum(1 for f in flags if f == 0)
    expected = no_collision_probability(4, 4)
    assert expected == pytest.approx(24 / 256)
    ci = proportion_ci(free, RUNS)
    assert ci.low <= expected <= ci.high, f"{free}/{RUNS} collision-free, CI {ci.describe()}"
    assert binomial_pvalue(free, RUNS, expected) > LEVEL
    assert 0 < free < RUNS  # the seed matters at all


def test_fixed_sport_sixteen_qps_collide_like_one_and_eecmp_spreads(tmp_path: Path) -> None:
    """With one UDP source port per RNIC, ECMP puts all 16 QPs of a connection on one
    uplink (as with 1 QP: Meta's "QP scaling alone failed"); E-ECMP hashes the BTH
    destination QP and spreads every connection over the uplinks."""
    ecmp, eecmp = [], []
    for seed in range(1, 7):
        for lb, sink in (("ecmp", ecmp), ("eecmp", eecmp)):
            out = run_scenario(
                FLAGSHIP,
                {**SMALL, "workload.size_bytes": 16 * 16384, "seed": seed, "switch.lb": lb,
                 "workload.num_qps": 16,
                 "rnic.udp_sport": "fixed"},
                runtime="virtual", out=tmp_path / f"{lb}{seed}", report=False,
            )  # fmt: skip
            per_conn: dict[tuple[str, str], set[str]] = {}
            for f in out.result.flows:
                per_conn.setdefault((f.src, f.dst), set()).update(f.uplinks)
            sink.append(sorted(len(u) for u in per_conn.values()))
    assert all(row == [1, 1, 1, 1] for row in ecmp)  # each connection on one uplink
    assert all(min(row) >= 3 for row in eecmp)  # 16 QPs over 4 uplinks: >= 3 used
