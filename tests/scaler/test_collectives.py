"""Traffic phases of ring, halving-doubling and AllToAll under both placements."""

from __future__ import annotations

import numpy as np
import pytest

from emulator.errors import UserError
from emulator.scaler.model.collectives import place_hosts, plan_collective
from emulator.scaler.model.fabric import meta_fabric

F = meta_fabric(512)


def test_ring_is_a_rail_aligned_host_ring() -> None:
    plan = plan_collective(F, "ring", 2**30)
    (ph,) = plan.phases
    hosts = F.hosts
    assert ph.steps == 2 * (hosts - 1)
    assert ph.bytes_per_conn == pytest.approx(2**30 / 8 / hosts)
    assert np.array_equal(ph.src % 8, ph.dst % 8)  # same rail
    assert np.array_equal((ph.src // 8 + 1) % hosts, ph.dst // 8)
    assert plan.nvlink_bytes == pytest.approx(2 * 7 / 8 * 2**30)


def test_halving_doubling_power_of_two_and_fold() -> None:
    plan = plan_collective(F, "hd", 2**30)  # 64 hosts: 6 levels, no fold
    assert [p.slot for p in plan.phases] == list(range(6))
    for s, ph in enumerate(plan.phases):
        assert np.array_equal(ph.src // 8 ^ (1 << s), ph.dst // 8)
        assert ph.bytes_per_conn == pytest.approx(2**30 / 8 / 2 ** (s + 1))
    odd = plan_collective(meta_fabric(48), "hd", 2**20)  # 6 hosts = 4 + 2 folded
    assert len(odd.phases) == 2 + 2
    assert odd.phases[0].bytes_per_conn == pytest.approx(2**20 / 8)


def test_alltoall_sampled_shifts_cover_all_steps() -> None:
    plan = plan_collective(F, "alltoall", 2**26, alltoall_samples=8, seed=3)
    assert sum(p.steps for p in plan.phases) == pytest.approx(511, rel=0.2)
    for ph in plan.phases:
        assert np.all(ph.src // 8 != ph.dst // 8)
        assert ph.bytes_per_conn == pytest.approx(2**26 / 512)


def test_placements() -> None:
    assert np.array_equal(place_hosts(F, 128, "packed", 0), np.arange(16))
    a, b = place_hosts(F, 128, "spread", 1), place_hosts(F, 128, "spread", 1)
    assert np.array_equal(a, b) and len(set(a.tolist())) == 16
    assert not np.array_equal(a, place_hosts(F, 128, "spread", 2))


def test_single_host_has_no_network_phase() -> None:
    plan = plan_collective(meta_fabric(8), "ring", 1024)
    assert plan.phases == ()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"collective": "tree"}, "collective"),
        ({"placement": "random"}, "placement"),
        ({"message_bytes": 0}, "message size"),
        ({"job_gpus": 12}, "multiple"),
    ],
)
def test_bad_input(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"collective": "ring", "message_bytes": 1024.0, **kwargs}
    with pytest.raises(UserError, match=match):
        plan_collective(F, **args)  # type: ignore[arg-type]
