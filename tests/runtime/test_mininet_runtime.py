"""MininetRuntime (the NetworkRuntime protocol on Mininet): workloads, failures, RunResult."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.control.live import LiveController
from emulator.errors import UserError
from emulator.measure.results import RunMeta, RunResult
from emulator.runtime.base import NetworkRuntime, make_runtime
from emulator.runtime.mininet.runtime import MininetRuntime

from .vt_fabric import plan_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setup():
    from emulator.control import FabricController
    from emulator.p4c import compile_file
    from emulator.topology import resolve
    from emulator.topology.io import load_clos

    topo = resolve(load_clos("two_rack_2spine"))
    prog = compile_file(str(ROOT / "p4" / "roce_fabric.p4"))
    ctl = FabricController(topo)
    cfg = plan_for(
        topo,
        {s.name: prog for s in topo.switches},
        {n: ctl.switch_ops(n) for n in ctl.switch_names},
        # frames lost on the failed link wait for a timeout: the default RTO (4096 frame
        # times, 3.7 s at 10 Mb/s, doubling per retry) made the repair test take > 30 s
        rnic={"mtu": 1024, "rto_ns": 200_000_000},
        # the live controller repairs the groups 50 ms after a link change (a timer thread)
        controller=LiveController(ctl, detection_delay_ns=50_000_000),
    )
    return topo, ctl, cfg


def test_protocol_and_workload_validation(setup) -> None:
    _topo, _ctl, cfg = setup
    rt = make_runtime("mininet", cfg)
    assert isinstance(rt, MininetRuntime) and isinstance(rt, NetworkRuntime)
    assert rt.name == "mininet"
    rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 4096})
    with pytest.raises(UserError, match="cannot share hosts"):
        rt.add_workload({"kind": "incast", "senders": ["h1", "h2"], "receiver": "h3",
                         "size_bytes": 4096})  # fmt: skip
    with pytest.raises(UserError, match="unknown host"):
        rt.add_workload({"kind": "fat_flows", "pairs": [["h1", "h99"]], "size_bytes": 1})
    with pytest.raises(UserError, match="hosts"):
        rt.add_workload({"kind": "allreduce", "size_bytes": 1})
    with pytest.raises(UserError, match="not started"):
        rt.run(10**9)
    rt.stop()  # never started: a no-op


@pytest.mark.mininet
def test_allreduce_with_a_link_failure_gives_a_full_run_result(setup, tmp_path: Path) -> None:
    topo, _ctl, cfg = setup
    hosts = [h.name for h in topo.hosts]
    with make_runtime("mininet", cfg) as rt:
        rt.start()
        rt.add_workload({"kind": "allreduce", "hosts": hosts, "size_bytes": 131072,
                         "num_qps": 4})  # fmt: skip
        rt.run(until_ns=1_200_000_000)  # ranks start at ~1 s: fail while data flows
        rt.fail_link("rtsw0", "ctsw0")  # the controller hears it and repairs
        assert rt.run(until_ns=30_000_000_000)
        res = rt.result(RunMeta(scenario="t", runtime="mininet", target="builtin",
                                complete=True))  # fmt: skip
    assert res.meta.complete and res.meta.end_ns > 1_200_000_000
    [coll] = res.collectives
    assert (coll.collective, coll.ranks, coll.size_bytes) == ("allreduce", 4, 131072)
    assert 1_000_000_000 <= coll.start_ns < coll.end_ns <= res.meta.end_ns
    assert len(res.flows) >= 4 and all(f.bytes > 0 for f in res.flows)
    assert len(res.links) == 2 * len(topo.links)
    up = {(link.src, link.dst): link for link in res.links}
    assert up[("h0", "rtsw0")].bytes > 131072 and up[("h0", "rtsw0")].utilisation
    assert max(up[("h0", "rtsw0")].utilisation) <= 1.2  # serialised at the link rate
    assert any(q.enqueued for q in res.queues)
    assert res.totals.packets_sent > 0 and res.conservation is not None
    assert res.conservation.sent == res.totals.packets_sent
    assert any("fail_link rtsw0 ctsw0" in e for e in res.events)
    [repair] = cfg.controller.repairs
    assert repair.event.a == "rtsw0" and not repair.event.up
    assert set(repair.ops) == {"rtsw0", "rtsw1", "ctsw0"}  # only the switches whose groups changed
    assert sum("apply_ops" in e for e in res.events) == 3
    assert set(res.hosts) == set(hosts) and set(res.switches) == {s.name for s in topo.switches}
    assert all({"p4_ecn_marks", "p4_drops", "p4_pfc_tx"} <= set(c) for c in res.switches.values())
    assert res.totals.ecn_marks == 0  # RNICs send Not-ECT unless DCQCN is on: nothing to mark
    path = res.save(tmp_path / "result.json")
    assert RunResult.load(path).collectives == res.collectives
    assert json.loads(path.read_text())["meta"]["runtime"] == "mininet"
    names = [p.intf for s in topo.switches for p in s.ports]
    assert not any(Path(f"/sys/class/net/{n}").exists() for n in names)
