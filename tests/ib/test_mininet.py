"""The IB fabric on the Mininet runtime: OpenSM's LFTs forward, credits travel as FCPs."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from emulator.cli.cmd_compare import _overrides
from emulator.ib.fabric import IbFabric, IbFabricSettings, build_ib_fabric
from emulator.ib.linkfc import wire_limit
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.spec import RunOptions, RunPlan
from emulator.runtime.mininet.runtime import MininetRuntime
from emulator.runtime.runstate import same_process
from emulator.scenario.load import load_scenario
from emulator.scenario.runner import run_scenario
from emulator.topology import load_clos, resolve
from emulator.topology.resolve import ResolvedTopology
from emulator.traffic.rnic import RnicConfig

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "roce_vs_ib.yaml"
SENDERS = [f"h{i}" for i in range(4, 12)]  # racks 1 and 2
SIZE = 65536

pytestmark = [pytest.mark.mininet, pytest.mark.ib, pytest.mark.timeout(300)]


@cache
def _fabric() -> tuple[ResolvedTopology, IbFabric]:
    topo = resolve(load_clos("calib_4x4"))
    return topo, build_ib_fabric(topo, IbFabricSettings())


def _config(credits: bool = True) -> RunPlan:
    topo, fab = _fabric()
    return RunPlan(
        topo, {s.name: fab.program for s in topo.switches}, fab.ops, fabric="ib",
        framing=fab.framing, credits=fab.credits if credits else None,
        options=RunOptions(pfc=False), rnic=RnicConfig(link_bps=10e6),  # calib_4x4's links
    )  # fmt: skip


def test_adaptive_routing_spreads_and_ooo_placement_avoids_the_nak_storm(
    tmp_path: Path,
) -> None:
    """The ib_adaptive variant on Mininet: the four flows leave rack 0 over several uplinks
    (per packet, least occupied); reordered packets are placed, not NAKed, so it resends a
    small fraction of what strict go-back-N receivers make it resend (thousands of frames)."""
    variant = _overrides({"variant": "ib_adaptive"}, load_scenario(SCENARIO).variants)
    assert variant["rnic.ooo_window"] > 0
    small = {"workload.size_bytes": 131072}
    runs = {}
    for window in (variant["rnic.ooo_window"], 0):
        over = variant | small | {"rnic.ooo_window": window}
        out = tmp_path / f"w{window}"
        runs[window] = run_scenario(SCENARIO, over, runtime="mininet", out=out, report=False)
    placed, strict = runs[variant["rnic.ooo_window"]], runs[0]
    assert placed.error is None and placed.completed == 1
    used = {u for f in placed.result.flows for u in f.uplinks}
    assert len(used) >= 3, used  # static routing puts three of the four on one uplink
    naks = sum(h.get("naks_sent", 0) for h in strict.result.hosts.values())
    assert naks > 0 and strict.retransmissions > 100  # the reordering is real
    # frames the processes really lost (rare, load-dependent) still cost a resend each
    assert placed.retransmissions <= strict.retransmissions / 10


def test_fat_flows_take_opensm_lft_ports(tmp_path: Path) -> None:
    """roce_vs_ib.yaml's IB static variant on Mininet: every flow leaves rack 0 by the
    uplink OpenSM's ftree LFT gives its destination LID (measured on the wire)."""
    variant = _overrides({"variant": "ib_static"}, load_scenario(SCENARIO).variants)
    small = {"workload.size_bytes": 131072}
    o = run_scenario(SCENARIO, variant | small, runtime="mininet", out=tmp_path, report=False)
    assert o.error is None and o.completed == 1
    assert o.drops == 0 and o.retransmissions == 0 and o.pause_frames == 0
    topo, fab = _fabric()
    host_of = {h.ip: h.name for h in topo.hosts}
    lft = fab.routing.lfts["rtsw0"]
    flows = o.result.flows
    assert len(flows) == 4
    for f in flows:
        [dlid] = fab.routing.lids(host_of[f.dst])
        assert f.uplinks_source == "measured"
        assert f.uplinks == [f"rtsw0:{lft[dlid]}"]
    assert len({tuple(f.uplinks) for f in flows}) == 2  # ftree's collision: 3 share one


def _incast(credits: bool) -> tuple[RunResult, dict[str, Any], list[dict[str, Any]]]:
    """8:1 incast on Mininet; the result, the switches' final stats, the recorded processes."""
    with MininetRuntime(_config(credits)) as rt:
        rt.start()
        rt.add_workload({"kind": "incast", "senders": SENDERS, "receiver": "h0",
                         "size_bytes": SIZE})  # fmt: skip
        done = rt.run(60 * 10**9)
        stats = rt.fabric.switch_stats()
        assert rt.fabric.state is not None
        procs = list(rt.fabric.state.pids)
        res = rt.result(RunMeta(scenario="incast", runtime="mininet", target="builtin",
                                complete=done))  # fmt: skip
    return res, stats, procs


def test_incast_8_to_1_is_lossless_senders_stall_and_nothing_is_left() -> None:
    res, stats, procs = _incast(credits=True)
    assert res.meta.complete
    assert res.totals.drops == 0 and res.totals.retransmissions == 0
    assert res.conservation is not None and res.conservation.ok
    end = max(f.end_ns for f in res.flows)
    start = min(f.start_ns for f in res.flows)
    # the receiver's 10 Mb/s link is the bottleneck: 8 x 64 KiB take >= 419 ms
    assert end - start >= 8 * SIZE * 8 / 10e6 * 1e9
    for s in SENDERS:  # each gets ~1/8 of the link: its HCA waits for credits
        c = res.hosts[s]
        assert c["credit_stalls"] >= 1
        assert c["credit_stalled_ns"] > 0.3 * (end - start)
    limit = wire_limit(16384)
    for sw, st in stats.items():
        for port, pc in st["credits"].items():
            assert pc["max_used"] <= limit, (sw, port)
            assert pc["fcp_bad"] == 0
    assert sum(pc["fcp_rx"] for pc in stats["rtsw0"]["credits"].values()) > 0
    kinds = {p["what"].split()[0] for p in procs}
    assert {"switch", "rnic", "mininet"} <= kinds
    alive = [p["what"] for p in procs if same_process(p["pid"], p["start"])]
    assert alive == []  # switches, RNICs, host shells, tcpdumps: all stopped


@pytest.mark.bmv2
def test_on_bmv2_forwards_by_the_lft_without_credits_and_says_so(tmp_path: Path) -> None:
    """Real simple_switch runs fabemu's ib_fabric.p4 JSON; it has no link-level flow
    control, so the run goes without credits and its events say it is not lossless."""
    variant = _overrides({"variant": "ib_static"}, load_scenario(SCENARIO).variants)
    small = {"workload.size_bytes": 65536}
    o = run_scenario(
        SCENARIO, variant | small, runtime="mininet", target="bmv2", out=tmp_path, report=False
    )
    assert o.error is None and o.completed == 1
    assert any("without credit flow control" in e for e in o.result.events)
    assert not any("credit_stalls" in c for c in o.result.hosts.values())
    topo, fab = _fabric()
    host_of = {h.ip: h.name for h in topo.hosts}
    for f in o.result.flows:
        [dlid] = fab.routing.lids(host_of[f.dst])
        assert f.uplinks == [f"rtsw0:{fab.routing.lfts['rtsw0'][dlid]}"]
