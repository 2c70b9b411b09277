"""Scenario workload sections become traffic workloads."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from emulator.errors import UserError
from emulator.traffic.rnic import RnicConfig
from emulator.traffic.scenario_bridge import (
    rnic_config_from_scenario,
    workload_from_scenario,
)

RACKS = {"z0r0": ["h0", "h1", "h2", "h3"], "z0r1": ["h4", "h5", "h6", "h7"]}


def test_kinds_map_to_workloads() -> None:
    w = workload_from_scenario({"kind": "allreduce", "ranks": 4, "size_bytes": 4096}, RACKS)
    assert (w.collective, w.algorithm, w.hosts) == ("allreduce", "ring", ("h0", "h4", "h1", "h5"))
    w = workload_from_scenario(
        {
            "kind": "allreduce",
            "algorithm": "halving_doubling",
            "ranks": 4,
            "placement": "packed",
            "size_bytes": 4096,
        },
        RACKS,
    )
    assert w.algorithm == "halving_doubling" and w.hosts == ("h0", "h1", "h2", "h3")
    w = workload_from_scenario(
        {"kind": "alltoall", "iterations": 3, "num_qps": 16, "size_bytes": 8000}, RACKS
    )
    assert len(w.hosts) == 8 and w.iterations == 3 and w.num_qps == 16
    w = workload_from_scenario(
        SimpleNamespace(
            kind="incast",
            senders=["h0", "h1"],
            receiver="h5",
            size_bytes=10,
            ranks=None,
            placement="spread",
            hosts=None,
            pairs=None,
        ),
        RACKS,
    )
    assert w.hosts == ("h5", "h0", "h1") and w.collective == "incast"
    w = workload_from_scenario(
        {"kind": "fat_flows", "pairs": [("h0", "h4"), ("h1", "h5")], "size_bytes": 10}, RACKS
    )
    assert w.rank_pairs() == [(0, 1), (2, 3)]


def test_bad_scenario_workloads() -> None:
    for bad, msg in [
        ({"kind": "allreduce", "hosts": ["h0", "h9"], "size_bytes": 8}, "not in the topology"),
        ({"kind": "fat_flows", "pairs": [("h0", "x")], "size_bytes": 8}, "not in the topology"),
        ({"kind": "incast", "senders": ["h0"], "receiver": "q", "size_bytes": 8}, "not in the"),
        (
            {"kind": "allreduce", "algorithm": "halving_doubling", "ranks": 6, "size_bytes": 64},
            "power-of-two",
        ),
        ({"kind": "allreduce", "ranks": 9, "size_bytes": 64}, "does not fit"),
    ]:
        with pytest.raises(UserError, match=msg):
            workload_from_scenario(bad, RACKS)
    with pytest.raises(UserError, match="path MTU"):
        rnic_config_from_scenario({"mtu": 9000})


def test_rnic_settings() -> None:
    base = RnicConfig(link_bps=1e9)
    cfg = rnic_config_from_scenario({"chunk_bytes": 4096, "mtu": 2048, "cts": False}, base)
    assert (cfg.chunk_bytes, cfg.mtu, cfg.admission, cfg.link_bps) == (4096, 2048, False, 1e9)
    assert rnic_config_from_scenario({"kind": "allreduce"}, base) == base


def test_real_scenario_model_if_available() -> None:
    schema = pytest.importorskip("emulator.scenario.schema")
    try:
        w = schema.Workload(
            kind="allreduce",
            algorithm="halving_doubling",
            ranks=4,
            num_qps=16,
            placement="packed",
        )
    except Exception as exc:  # the schema is another layer's; say what changed
        pytest.skip(f"scenario Workload schema differs from the one this test knows: {exc}")
    tw = workload_from_scenario(w, RACKS)
    assert tw.num_qps == 16 and tw.hosts == ("h0", "h1", "h2", "h3")
    assert tw.algorithm == "halving_doubling"
