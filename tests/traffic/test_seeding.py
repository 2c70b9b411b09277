"""What the seed decides: QPNs (random, distinct per RNIC, both ends agree), PSNs, source
ports by policy, placement; the same in every process."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.traffic import seeding
from emulator.traffic.connection import QP_SLOTS, ConnSpec
from emulator.traffic.rnic import RnicConfig
from emulator.traffic.workloads import place

ROOT = Path(__file__).resolve().parents[2]


@given(seed=st.integers(0, 2**32), slots=st.lists(st.integers(0, 0xFFFFF0), min_size=2))
def test_qpns_distinct_per_rnic_and_invertible(seed: int, slots: list[int]) -> None:
    qpns = {s: seeding.qpn(seed, "10.0.0.1", s) for s in set(slots)}
    assert len(set(qpns.values())) == len(qpns)  # a bijection: no two QPs share a QPN
    for s, q in qpns.items():
        assert 2 <= q < 0xFFFFFF  # QP0, QP1 and the multicast QPN are never used
        assert seeding.qp_slot(seed, "10.0.0.1", q) == s


def test_seed_changes_qpns_psns_and_sports() -> None:
    a, b = (
        ConnSpec(0, "10.0.0.1", "10.0.1.1", 4, seed=1),
        ConnSpec(0, "10.0.0.1", "10.0.1.1", 4, seed=2),
    )
    assert a.qpns("a") != b.qpns("a") and a.qpns("b") != b.qpns("b")
    assert a.ipsn("a", 1) != b.ipsn("a", 1)
    assert ConnSpec(0, "10.0.0.1", "10.0.1.1", 4, seed=1).qpns("a") == a.qpns("a")
    # QPNs spread over the 24-bit space (not a small counter)
    many = [seeding.qpn(7, "10.0.0.1", s) for s in range(2000)]
    assert max(many) > 0xF00000 and min(many) < 0x100000


def test_same_seed_same_values_in_another_process() -> None:
    code = (
        "from emulator.traffic import seeding as s;"
        "print(s.qpn(5,'10.0.0.3',77), s.ipsn(5,3,'a',2), s.fixed_sport(5,'10.0.0.3'),"
        " s.rng(5,'placement').random())"
    )
    here = f"{seeding.qpn(5, '10.0.0.3', 77)} {seeding.ipsn(5, 3, 'a', 2)} "
    here += f"{seeding.fixed_sport(5, '10.0.0.3')} {seeding.rng(5, 'placement').random()}"
    for hashseed in ("1", "2"):  # Python's str hash randomisation must not matter
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={"PYTHONHASHSEED": hashseed, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert out.stdout.strip() == here


def _sports(policy: str, seed: int = 3) -> dict[tuple[str, int], int]:
    """(side ip, QP index) -> UDP source port for two 4-QP connections from one RNIC."""
    out = {}
    for conn_id, peer in ((0, "10.0.1.1"), (1, "10.0.1.2")):
        spec = ConnSpec(conn_id, "10.0.0.1", peer, 4, seed)
        mine, theirs = spec.qpns("a"), spec.qpns("b")
        for i in range(1, 5):
            out[(peer, i)] = seeding.udp_sport(
                policy, seed, "10.0.0.1", (mine[i], theirs[i]), (mine[0], theirs[0])
            )
    return out


def test_sport_policies() -> None:
    per_qp = _sports("qpn_hash")
    assert len(set(per_qp.values())) == 8  # every QP its own port
    per_conn = _sports("per_connection")
    assert {per_conn[("10.0.1.1", i)] for i in range(1, 5)} == {per_conn[("10.0.1.1", 1)]}
    assert per_conn[("10.0.1.1", 1)] != per_conn[("10.0.1.2", 1)]
    fixed = _sports("fixed")
    assert len(set(fixed.values())) == 1  # one port for the whole RNIC
    assert set(_sports("fixed", seed=4).values()) != set(fixed.values())
    assert all(0xC000 <= p <= 0xFFFF for p in [*per_qp.values(), *fixed.values()])
    with pytest.raises(UserError, match="udp_sport"):
        RnicConfig(udp_sport="random")


def test_flow_sport_recovers_each_policy() -> None:
    """What the uplink predictor recomputes from a flow's QPNs equals what the RNIC sent."""
    spec = ConnSpec(9, "10.0.0.1", "10.0.1.1", 4, seed=11)
    mine, theirs = spec.qpns("a"), spec.qpns("b")
    for policy in seeding.SPORT_POLICIES:
        sent = seeding.udp_sport(policy, 11, "10.0.0.1", (mine[3], theirs[3]), (mine[0], theirs[0]))
        got = seeding.flow_sport(
            policy, 11, ("10.0.0.1", mine[3]), ("10.0.1.1", theirs[3]), QP_SLOTS
        )
        assert got == sent


def test_random_placement_is_seeded() -> None:
    racks = {"r0": ["h0", "h1", "h2", "h3"], "r1": ["h4", "h5", "h6", "h7"]}
    assert place(4, racks, "random", seed=1) == place(4, racks, "random", seed=1)
    draws = Counter(tuple(place(4, racks, "random", seed=s)) for s in range(50))
    assert len(draws) > 40  # different seeds, different placements
