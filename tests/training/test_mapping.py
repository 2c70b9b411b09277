"""Rank-to-GPU mapping and job placement on a known topology (two_zone_atsw: 2 zones x 4
racks x 2 GPUs; a server = the 2 GPUs of a rack)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.topology import load_clos, resolve
from emulator.traffic.mapping import Degrees, gpus_of, map_ranks, place_job, spans, split_by

GPUS = gpus_of(resolve(load_clos("two_zone_atsw")).hosts)
JOB = Degrees(tp=2, cp=1, pp=2, dp=4)


def layout(mapping: str, placement: str = "min_cut", seed: int = 0) -> list:
    alloc = place_job(GPUS, JOB.ranks, 2, placement, seed)
    return map_ranks(alloc, JOB, mapping, seed)


def test_groups_follow_llama3_order() -> None:
    assert JOB.groups("tp")[:2] == [(0, 1), (2, 3)]
    assert JOB.groups("pp")[:2] == [(0, 2), (1, 3)]
    assert JOB.groups("dp")[0] == (0, 4, 8, 12)
    assert sorted(r for g in JOB.groups("dp") for r in g) == list(range(16))


def test_topology_aware_tp_in_server_pp_in_zone_dp_across() -> None:
    gpu = layout("topology_aware")
    assert [gpu[r].host for r in (0, 1)] == ["h0", "h1"]
    assert all(spans(gpu, g, "server", 2) == 1 for g in JOB.groups("tp"))
    for g in JOB.groups("pp"):
        assert spans(gpu, g, "zone", 2) == 1 and spans(gpu, g, "rack", 2) == 2
    assert all(spans(gpu, g, "zone", 2) == 2 for g in JOB.groups("dp"))
    assert split_by(gpu, (0, 4, 8, 12), "zone", 2) == [[0, 4], [8, 12]]


def test_naive_puts_tp_across_servers_and_dp_inside() -> None:
    gpu = layout("naive")
    assert all(spans(gpu, g, "server", 2) == 2 for g in JOB.groups("tp"))
    assert all(spans(gpu, g, "zone", 2) == 1 for g in JOB.groups("dp"))
    assert sorted(g.host for g in gpu) == sorted(g.host for g in GPUS)


def test_random_mapping_is_seeded() -> None:
    a, b, c = layout("random", seed=1), layout("random", seed=1), layout("random", seed=2)
    assert a == b and a != c
    assert sorted(g.host for g in a) == sorted(g.host for g in GPUS)


def test_min_cut_keeps_a_half_cluster_job_in_one_zone() -> None:
    small = Degrees(tp=2, pp=2, dp=2)
    alloc = place_job(GPUS, small.ranks, 2, "min_cut")
    assert {g.zone for g in alloc} == {0}
    zones = [len({g.zone for g in place_job(GPUS, 8, 2, "random", s)}) for s in range(10)]
    assert max(zones) == 2
    servers = {(g.zone, g.rack) for g in place_job(GPUS, 8, 2, "random", 3)}
    assert len(servers) == 4  # whole servers


def test_bad_jobs_are_clear_errors() -> None:
    with pytest.raises(UserError, match="does not fit the 16 GPUs"):
        place_job(GPUS, 32, 2, "min_cut")
    with pytest.raises(UserError, match="8 GPUs for a job of 16"):
        map_ranks(GPUS[:8], JOB, "topology_aware")
    with pytest.raises(UserError, match="unknown mapping"):
        map_ranks(GPUS, JOB, "clever")
    with pytest.raises(UserError, match="tp: want a degree"):
        Degrees(tp=0)


@given(st.tuples(*(st.integers(1, 4) for _ in range(4))))
def test_coords_round_trip(sizes: tuple[int, int, int, int]) -> None:
    d = Degrees(*sizes)
    assert [d.rank(d.coords(r)) for r in range(d.ranks)] == list(range(d.ranks))
    for axis in ("tp", "cp", "pp", "dp"):
        groups = d.groups(axis)
        assert sorted(r for g in groups for r in g) == list(range(d.ranks))
        assert all(len(g) == getattr(d, axis) for g in groups)


@given(
    st.sampled_from([(1, 1, 1, 16), (2, 1, 2, 4), (2, 2, 2, 2), (2, 1, 1, 8), (1, 2, 4, 2)]),
    st.sampled_from(["topology_aware", "naive", "random"]),
    st.sampled_from(["min_cut", "random"]),
    st.integers(0, 50),
)
def test_every_mapping_is_a_bijection_and_aware_keeps_tp_in_a_server(
    sizes: tuple[int, int, int, int], mapping: str, placement: str, seed: int
) -> None:
    d = Degrees(*sizes)
    alloc = place_job(GPUS, d.ranks, 2, placement, seed)
    gpu = map_ranks(alloc, d, mapping, seed)
    assert sorted(gpu, key=lambda g: g.host) == sorted(alloc, key=lambda g: g.host)
    if mapping == "topology_aware":
        assert all(spans(gpu, g, "server", 2) == 1 for g in d.groups("tp"))
