"""VirtualRuntime on the 2-spine fabric: forwarding, counters, the protocol, errors."""

from __future__ import annotations

import pytest

from emulator.errors import UserError
from emulator.runtime.base import NetworkRuntime, make_runtime
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.target.ops import TableAdd

from .vt_fabric import META, assert_conserved, config, plan_for, run

SIZE = 64 * 1024
PAIRS = [["h0", "h2"], ["h1", "h3"]]
FAT = {"kind": "fat_flows", "pairs": PAIRS, "size_bytes": SIZE}


def test_fat_flows_between_racks_deliver_exact_bytes() -> None:
    cfg, _ = config("two_rack_2spine")
    done, r, rt = run(cfg, FAT)
    assert done and r.meta.complete is False  # the caller decides complete; not overridden
    assert r.meta.incomplete_reason is None
    ips = {h.name: h.ip for h in cfg.topo.hosts}
    got = {(f.src, f.dst): f.bytes for f in r.flows}
    assert got == {(ips[a], ips[b]): SIZE for a, b in PAIRS}
    assert all(f.throughput_bps > 0.8 * 10e6 for f in r.flows)  # near the 10 Mb/s line rate
    assert all(len(f.uplinks) == 1 and f.uplinks[0].startswith("rtsw0:") for f in r.flows)
    assert r.hosts["h2"]["rx_payload_bytes"] == SIZE
    assert r.totals.drops == 0 and r.totals.retransmissions == 0
    assert r.totals.packets_delivered == r.totals.packets_sent
    assert_conserved(r)
    assert r.collectives and r.collectives[0].collective == "fat_flows"
    # link counters: what left a host reached its leaf, and the leaf's uplinks carried it
    links = {ln.name: ln for ln in r.links}
    assert len(links) == 2 * len(cfg.topo.links)
    h0_up = links["h0:0->rtsw0:1"]
    assert h0_up.up and h0_up.kind == "host" and h0_up.packets == r.hosts["h0"]["tx_pkts"]
    up_bytes = sum(ln.bytes for ln in r.links if ln.src == "rtsw0" and ln.up)
    assert up_bytes >= 2 * SIZE
    for ln in r.links:
        assert len(ln.t_ns) == len(ln.utilisation)
        assert all(0.0 <= u <= 1.0 for u in ln.utilisation)
    assert max(max(ln.utilisation) for ln in r.links) > 0.9  # a saturated host link
    assert r.queues and all(q.enqueued == q.dequeued for q in r.queues)
    assert r.switches["rtsw0"]["tx_pkts"] > 0 and r.switches["ctsw0"]["data_drops"] == 0
    assert r.meta.end_ns == rt.engine.now and 0 < r.meta.end_ns < 10**10
    stats = rt.stats()
    assert stats["hops"] == sum(ln.packets for ln in r.links) and stats["hops_per_s"] > 0


def test_run_stops_when_time_runs_out_and_resumes() -> None:
    cfg, _ = config("two_rack_2spine")
    with make_runtime("virtual", cfg) as rt:
        assert isinstance(rt, VirtualRuntime) and isinstance(rt, NetworkRuntime)
        rt.start()
        rt.add_workload(FAT)
        assert rt.run(5_000_000) is False  # 64 KiB at 10 Mb/s needs ~55 ms
        partial = rt.result(META)
        assert partial.meta.complete is False and "not done" in partial.meta.incomplete_reason
        assert partial.meta.end_ns == 5_000_000
        assert_conserved(partial)
        assert partial.conservation.in_flight > 0 or partial.totals.packets_delivered > 0
        assert rt.run(10**10) is True
        final = rt.result(META)
        assert final.meta.incomplete_reason is None
        assert sum(f.bytes for f in final.flows) == 2 * SIZE
        rt.stop()
        rt.stop()  # idempotent
        assert rt.result(META).totals == final.totals  # still readable after stop


def test_schedule_runs_callables_at_their_time() -> None:
    cfg, _ = config("two_rack_2spine")
    seen: list[int] = []
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.schedule(3_000, lambda: seen.append(rt.engine.now))
        rt.schedule(1_000, lambda: seen.append(rt.engine.now))
        assert rt.run(10_000) is True  # no workload: nothing to wait for
        assert seen == [1_000, 3_000]
        r = rt.result(META)
        assert "no workload" in (r.meta.incomplete_reason or "")


def test_workloads_added_before_start_and_two_workloads_share_hosts() -> None:
    cfg, _ = config("two_rack_2spine")
    with VirtualRuntime(cfg) as rt:
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 16384})
        rt.start()
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h3"]], "size_bytes": 16384})
        assert rt.run(10**10)
        r = rt.result(META)
    assert sorted(f.bytes for f in r.flows) == [16384, 16384]
    assert len(r.collectives) == 2 and len({f.flow_id for f in r.flows}) == 2
    assert_conserved(r)


def test_user_errors() -> None:
    cfg, _ = config("two_rack_2spine")
    rt = VirtualRuntime(cfg)
    with pytest.raises(UserError, match="not started"):
        rt.run(1)
    early = rt.result(META)
    assert early.meta.complete is False and "never started" in early.meta.incomplete_reason
    bad_cmd = plan_for(cfg.topo, cfg.programs, {"rtsw0": (TableAdd("nope", "x", (1,), (2,)),)})
    broken = VirtualRuntime(bad_cmd)
    with pytest.raises(UserError, match="rtsw0"):
        broken.start()
    assert broken.result(META).meta.complete is False
    with pytest.raises(UserError, match="unknown workload"):
        rt.add_workload({"kind": "nope", "size_bytes": 1})
    rt.start()
    with pytest.raises(UserError, match="unknown host"):
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h99"]], "size_bytes": 1024})
    with pytest.raises(UserError, match="no link"):
        rt.fail_link("h0", "h1")
    with pytest.raises(UserError, match="no node"):
        rt.fail_link("rtsw0", "nope")
    with pytest.raises(UserError, match="no switch"):
        rt.switch_cli("h0", "table_dump x")
    with pytest.raises(UserError, match="no P4 program"):
        plan_for(cfg.topo, {}, cfg.switch_ops)
    with pytest.raises(UserError, match="unknown keys"):
        plan_for(cfg.topo, cfg.programs, cfg.switch_ops, rnic={"mtuu": 1024})
    bmv2 = plan_for(cfg.topo, cfg.programs, cfg.switch_ops, target="bmv2")
    with pytest.raises(UserError, match="cannot run in the 'virtual' runtime"):
        VirtualRuntime(bmv2).start()
    rt.stop()
    with pytest.raises(UserError, match="stopped"):
        rt.run(10)


def test_pcaps_per_switch_port_carry_virtual_time(tmp_path) -> None:
    from scapy.layers.inet import UDP
    from scapy.utils import rdpcap

    cfg, _ = config("two_rack_2spine", pcap_dir=str(tmp_path))
    work = {"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 8192}
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(work)
        assert rt.run(10**10)
        r = rt.result(META)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"rtsw0-eth1_in.pcap", "rtsw0-eth1_out.pcap", "ctsw0-eth1_in.pcap"} <= names
    link = next(ln for ln in r.links if ln.name == "h0:0->rtsw0:1")
    pkts = rdpcap(str(tmp_path / "rtsw0-eth1_in.pcap"))
    assert len(pkts) == link.packets and pkts[0].haslayer(UDP) and pkts[0][UDP].dport == 4791
    stamps = [int(p.time * 1_000_000) for p in pkts]
    assert stamps == sorted(stamps) and stamps[-1] <= r.meta.end_ns // 1000


def test_log_dir_gets_engine_figures_and_events(tmp_path) -> None:
    import json

    cfg, _ = config("two_rack_2spine", log_dir=str(tmp_path / "logs"))
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload({"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": 4096})
        rt.schedule(10**9, lambda: rt.fail_link("h1", "rtsw0"))
        assert rt.run(10**10)
    summary = json.loads((tmp_path / "logs" / "virtual.json").read_text())
    assert summary["stats"]["hops"] > 0 and summary["events"] == []


def test_cross_zone_flows_climb_to_the_atsws() -> None:
    cfg, _ = config("two_zone_atsw")
    last = cfg.topo.hosts[-1].name  # zone 1
    work = {"kind": "fat_flows", "pairs": [["h0", last], [last, "h1"]], "size_bytes": 16384}
    done, r, _ = run(cfg, work)
    assert done and [f.bytes for f in r.flows] == [16384, 16384]
    agg_up = [ln for ln in r.links if ln.kind == "agg" and ln.up and ln.bytes > 16384]
    agg_down = [ln for ln in r.links if ln.kind == "agg" and not ln.up and ln.bytes > 16384]
    assert len(agg_up) == 2 and len(agg_down) == 2  # each flow: spine -> ATSW -> spine
    assert all(ln.dst.startswith("atsw") for ln in agg_up)
    assert_conserved(r)


def test_single_flow_timing_equals_the_serialisation_model() -> None:
    """64 RDMA WRITE frames of 1024 B payload (first carries RETH, last ImmDt) arrive back to
    back at the 10 Mb/s bottleneck: first-to-last arrival is exactly 62 middle frames
    (1082 B) plus the last (1086 B), each (len + 24) * 8 / rate."""
    from emulator.traffic.qp import wire_ns

    cfg, _ = config("two_rack_2spine")
    done, r, _ = run(cfg, {"kind": "fat_flows", "pairs": [["h0", "h2"]], "size_bytes": SIZE})
    assert done
    (flow,) = r.flows
    rate = 10_000_000
    assert flow.duration_ns == 62 * wire_ns(1082, rate) + wire_ns(1086, rate)
