"""roce_vs_ib.yaml: a fat-flow collision under static ftree routing that adaptive routing spreads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.cli.cmd_compare import _overrides
from emulator.errors import UserError
from emulator.scenario.load import ScenarioError, load_scenario
from emulator.scenario.metrics import METRIC_NAMES
from emulator.scenario.runner import RunOutcome, run_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "roce_vs_ib.yaml"
SMALL = {"workload.size_bytes": 262_144}
LUA = SCENARIO.parents[1] / "scripts" / "wireshark" / "ib_shim.lua"


def _variant(name: str) -> dict[str, object]:
    return _overrides({"variant": name}, load_scenario(SCENARIO).variants)


def _uplink_bytes(outcome: RunOutcome, leaf: str = "rtsw0") -> list[int]:
    return [
        link.bytes
        for link in outcome.result.links
        if link.kind == "fabric" and link.up and link.src == leaf
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunOutcome]:
    out = {}
    for name in ("ib_static", "ib_adaptive"):
        pcap = {"pcap": name == "ib_static"}
        out[name] = run_scenario(SCENARIO, SMALL | pcap | _variant(name), runtime="virtual",
                                 out=tmp_path_factory.mktemp(name), report=False)  # fmt: skip
    return out


@pytest.mark.ib
def test_both_complete_losslessly(runs: dict[str, RunOutcome]) -> None:
    for o in runs.values():
        assert o.error is None and o.completed == 1
        assert o.drops == 0 and o.retransmissions == 0 and o.pause_frames == 0
        assert o.result.meta.lb.startswith("ib-ftree")


@pytest.mark.ib
def test_static_ftree_collides(runs: dict[str, RunOutcome]) -> None:
    """h4, h8 and h12 share rtsw0's first uplink in OpenSM's ftree LFT: 3 flows, 2 idle."""
    static = runs["ib_static"]
    assert static.max_uplink_imbalance >= 2.5
    assert static.idle_uplinks == 2
    sizes = sorted(_uplink_bytes(static), reverse=True)
    assert sizes[0] > 2.5 * sizes[1]


@pytest.mark.ib
def test_adaptive_routing_spreads_and_finishes_sooner(runs: dict[str, RunOutcome]) -> None:
    static, adaptive = runs["ib_static"], runs["ib_adaptive"]
    assert adaptive.idle_uplinks == 0
    assert adaptive.max_uplink_imbalance < 1.5
    assert adaptive.fct_p99_ms < 0.6 * static.fct_p99_ms


def test_variants_expand_to_overrides() -> None:
    assert _variant("ib_adaptive") == {
        "fabric": "ib", "ib.routing": "ftree", "ib.adaptive_routing": True,
        "rnic.ooo_window": 256,
    }  # fmt: skip
    with pytest.raises(UserError, match="no variant 'nope'"):
        _variant("nope")


def test_ib_loads_for_mininet_and_bmv2() -> None:
    """IB runs on Mininet (credits as FCPs) and on BMv2 (without credits, marked)."""
    sc = load_scenario(SCENARIO, {"fabric": "ib", "runtime": "mininet", "target": "bmv2"})
    assert (sc.fabric, sc.runtime, sc.target) == ("ib", "mininet", "bmv2")


@pytest.mark.parametrize(
    ("overrides", "msg"),
    [
        ({"fabric": "ib", "ib.lmc": 1}, "ib: OpenSM's ftree engine does not support lmc"),
        ({"fabric": "ib", "ib.routing": "lash"}, "ib.routing"),
        ({"fabric": "ib", "ib.vl_buffer_bytes": 64}, "ib.vl_buffer_bytes"),
    ],
)
def test_bad_ib_settings_name_the_key(overrides: dict[str, object], msg: str) -> None:
    with pytest.raises(ScenarioError, match=msg):
        load_scenario(SCENARIO, overrides)


@pytest.mark.ib
@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_run_pcaps_dissect_as_infiniband(runs: dict[str, RunOutcome]) -> None:
    """rtsw0's busiest uplink pcap: every frame is an IB packet to h4, h8 or h12 (or ACKs)."""
    pcap = runs["ib_static"].outdir / "pcaps" / "rtsw0-eth5_out.pcap"
    cmd = ["tshark", "-X", f"lua_script:{LUA}", "-r", str(pcap), "-T", "fields",
           "-e", "infiniband.lrh.dlid", "-e", "infiniband.bth.opcode"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) > 100
    assert all(len(r) == 2 and r[0] and r[1] for r in rows)  # LRH and BTH dissected
    data = {int(r[0]) for r in rows if int(r[1]) <= 11}  # RC SEND/WRITE opcodes
    assert len(data) == 3  # the three colliding destinations' LIDs


@pytest.mark.ib
def test_flows_report_their_uplinks(runs: dict[str, RunOutcome]) -> None:
    """IB data frames are attributed to flows like RoCE ones: static = one shared uplink."""
    static = {f.dst: f.uplinks for f in runs["ib_static"].result.flows}
    assert static["10.0.1.1"] == static["10.0.2.1"] == static["10.0.3.1"] == ["rtsw0:5"]
    assert static["10.0.3.2"] == ["rtsw0:6"]
    adaptive = {u for f in runs["ib_adaptive"].result.flows for u in f.uplinks}
    assert adaptive == {"rtsw0:5", "rtsw0:6", "rtsw0:7", "rtsw0:8"}


@pytest.mark.ib
def test_credit_stalls_reach_the_metrics(runs: dict[str, RunOutcome]) -> None:
    """Three flows share one uplink under static routing: their senders wait for credits."""
    static, adaptive = runs["ib_static"], runs["ib_adaptive"]
    assert static.credit_stall_ms > 0.3 * static.fct_p99_ms
    assert adaptive.credit_stall_ms < static.credit_stall_ms
    assert all("credit_stalled_ns" in c for c in static.result.hosts.values())
    assert set(static.metrics) <= METRIC_NAMES  # ``expect: credit_stall_ms`` is allowed


@pytest.mark.ib
def test_compare_over_seeds_prints_roce_and_ib_together(tmp_path: Path) -> None:
    """``fabemu compare roce_vs_ib.yaml --seeds N``: one table with RoCE and IB side by side,
    medians and intervals per variant in runs.json (what the README's table comes from)."""
    cmd = [sys.executable, "-m", "emulator", "compare", str(SCENARIO), "--seeds", "2",
           "--vary", "variant=roce_ecmp,ib_static", "--set", "workload.size_bytes=65536",
           "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    env = os.environ | {"COLUMNS": "250"}
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "variant=roce_ecmp" in res.stdout and "variant=ib_static" in res.stdout
    summary = json.loads((tmp_path / "runs.json").read_text())["summary"]
    assert set(summary) == {"variant=roce_ecmp", "variant=ib_static"}
    for cell in summary.values():
        fct = cell["fct_p99_ms"]
        assert fct["n"] == 2 and fct["median"] > 0  # (a 95% CI needs >= 6 seeds)
    assert summary["variant=ib_static"]["credit_stall_ms"]["median"] > 0  # IB-only metric
    assert summary["variant=roce_ecmp"]["drops"]["median"] == 0
