"""Collectives and workloads over a tiny star network of RNICs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.measure.flows import conservation, jain_fairness, latency_summary
from emulator.traffic import collectives as col
from emulator.traffic import workloads as wl
from emulator.traffic.qos import TrafficClassPlan
from emulator.traffic.rnic import Rnic, RnicConfig

from .netsim import Sim, StarSwitch


def star(n: int, cfg: RnicConfig, port_bps: float = 10e9):
    sim = Sim()
    sw = StarSwitch(sim, port_bps)
    sw_mac = "02:00:00:00:00:fe"
    nics, ips = {}, {}
    for i in range(n):
        host = f"h{i}"
        nic = Rnic(f"02:00:00:00:01:{i:02x}", f"10.0.{i}.2", sw_mac, config=cfg, name=host)
        sw.add(nic)
        nics[host], ips[host] = nic, nic.ip
    return sim, sw, nics, ips


def run(workload: wl.Workload, cfg: RnicConfig, port_bps: float = 10e9):
    sim, sw, nics, ips = star(len(workload.hosts), cfg, port_bps)
    dep = wl.Deployment(workload, nics, ips)
    dep.start(0)
    sim.kick_all()
    sim.run(10**11)
    assert dep.done
    return dep, sw, nics


def _transfers(s: col.Schedule, it: int = 1):
    sent = sum(t.nbytes for ph in s for p in ph for t in p.sends) * it
    recv = sum(t.nbytes for ph in s for p in ph for t in p.recvs) * it
    return sent, recv


@given(n=st.integers(2, 9), size=st.integers(64, 10**6))
def test_ring_schedule_byte_counts(n: int, size: int) -> None:
    s = col.ring_allreduce(n, size)
    sent, recv = _transfers(s)
    assert sent == recv == 2 * (n - 1) * size
    assert all(len(ph) == 2 * (n - 1) for ph in s)


@given(k=st.integers(1, 4), size=st.integers(64, 10**6))
def test_halving_doubling_schedule(k: int, size: int) -> None:
    n = 1 << k
    s = col.halving_doubling_allreduce(n, size)
    sent, recv = _transfers(s)
    assert sent == recv == 2 * (n - 1) * size  # same volume as ring
    assert all(len(ph) == 2 * k for ph in s)
    # every rank's sends equal its partner's receives, phase by phase
    for r, phases in enumerate(s):
        for i, ph in enumerate(phases):
            (snd,) = ph.sends
            (rcv,) = s[snd.peer][i].recvs
            assert rcv.peer == r and rcv.nbytes == snd.nbytes


def test_halving_doubling_needs_power_of_two() -> None:
    with pytest.raises(UserError, match="power-of-two"):
        col.halving_doubling_allreduce(6, 1000)


def test_busbw_factors() -> None:
    assert col.busbw_factor("allreduce", 8) == pytest.approx(1.75)
    assert col.busbw_factor("alltoall", 4) == pytest.approx(0.75)
    with pytest.raises(UserError):
        col.busbw_factor("gossip", 4)


def test_placement_packed_and_spread() -> None:
    racks = {"r0": ["a0", "a1", "a2"], "r1": ["b0", "b1", "b2"]}
    assert wl.place(4, racks, "packed") == ["a0", "a1", "a2", "b0"]
    assert wl.place(4, racks, "spread") == ["a0", "b0", "a1", "b1"]
    with pytest.raises(UserError):
        wl.place(7, racks)
    with pytest.raises(UserError):
        wl.place(2, racks, "scattered")


@pytest.mark.parametrize(
    ("algorithm", "n", "admission"),
    [("ring", 4, True), ("halving_doubling", 4, True), ("ring", 8, True), ("ring", 4, False)],
)
def test_allreduce_completes_with_exact_bytes(algorithm: str, n: int, admission: bool) -> None:
    size = 1 << 20
    cfg = RnicConfig(chunk_bytes=64 * 1024, admission=admission)
    w = wl.allreduce([f"h{i}" for i in range(n)], size, algorithm, num_qps=2)
    dep, sw, nics = run(w, cfg)
    per_rank = 2 * (n - 1) * size // n
    for r in dep.runners.values():
        assert abs(r.bytes_sent - per_rank) < n and abs(r.bytes_received - per_rank) < n
    total = sum(r.bytes_sent for r in dep.runners.values())
    assert total == 2 * (n - 1) * size
    assert sum(nic.counters.rx_payload_bytes for nic in nics.values()) == total + sum(
        24 * nic.counters.cts_received for nic in nics.values()
    )
    rec = dep.record()
    assert rec is not None and rec.ranks == n
    # busbw can not beat the 10 Gb/s ports; with ~7% header overhead it gets close
    assert 0.6 * 1.25e9 < rec.busbw_Bps < 1.25e9
    assert rec.busbw_Bps == pytest.approx(rec.algbw_Bps * 2 * (n - 1) / n)
    sent = sum(nic.counters.tx_pkts for nic in nics.values())
    delivered = sum(nic.counters.rx_pkts for nic in nics.values())
    assert conservation(sent, delivered, sw.dropped).ok


def test_ring_vs_halving_doubling_on_eight_ranks() -> None:
    cfg = RnicConfig(chunk_bytes=32 * 1024)
    hosts = [f"h{i}" for i in range(8)]
    recs = {}
    for algo in ("ring", "halving_doubling"):
        dep, _sw, _nics = run(wl.allreduce(hosts, 1 << 19, algo), cfg)
        recs[algo] = dep.record()
    # both finish; halving-doubling needs 2*log2(8)=6 steps instead of 14 (latency-bound win)
    assert recs["ring"].time_ns > 0 and recs["halving_doubling"].time_ns > 0
    assert recs["halving_doubling"].time_ns < recs["ring"].time_ns


def test_alltoall_and_iterations() -> None:
    cfg = RnicConfig(chunk_bytes=32 * 1024)
    w = wl.alltoall([f"h{i}" for i in range(4)], 400_000, iterations=2)
    dep, _sw, _nics = run(w, cfg)
    for r in dep.runners.values():
        assert r.bytes_sent == r.bytes_received == 2 * 3 * 100_000
    rec = dep.record()
    assert rec.iterations == 2 and rec.busbw_factor == pytest.approx(0.75)


def test_incast_records() -> None:
    """7:1 incast: every byte arrives, one CTS per chunk, per-QP flow records."""
    cfg = RnicConfig(chunk_bytes=64 * 1024, cts_window=2)
    hosts = [f"h{i}" for i in range(8)]
    w = wl.incast(hosts[1:], hosts[0], 512 * 1024, num_qps=2)
    dep, sw, nics = run(w, cfg)
    recv = dep.runners["h0"]
    assert recv.bytes_received == 7 * 512 * 1024
    lat = [x for h in hosts[1:] for x in nics[h].counters.cts_latency_ns]
    assert len(lat) == 7 * 8
    assert sw.max_depth > 50  # the receiver's port is congested
    flows = dep.flow_records()
    assert sum(f.bytes for f in flows) == 7 * 512 * 1024
    assert all(f.throughput_bps > 0 for f in flows)


def test_fat_flows_on_many_qps() -> None:
    cfg = RnicConfig(admission=False)
    w = wl.fat_flows([("h0", "h1"), ("h2", "h3"), ("h1", "h0")], 1 << 20, num_qps=16)
    dep, _sw, _nics = run(w, cfg)
    flows = dep.flow_records()
    assert len(flows) == 3 * 8  # 1 MiB in 128 KiB chunks over 16 QPs: 8 QPs carry data
    assert sum(f.bytes for f in flows) == 3 << 20
    assert jain_fairness([f.throughput_bps for f in flows]) > 0.9


def test_long_lived_fat_flows_repeat() -> None:
    cfg = RnicConfig(chunk_bytes=64 * 1024)
    w = wl.fat_flows([("h0", "h1")], 256 * 1024, num_qps=4, iterations=3)
    dep, _sw, nics = run(w, cfg)
    assert dep.runners["h1"].bytes_received == 3 * 256 * 1024
    assert nics["h1"].counters.rx_payload_bytes == 3 * 256 * 1024
    assert sum(f.bytes for f in dep.flow_records()) == 3 * 256 * 1024


def _cts_through_congestion(plan: TrafficClassPlan) -> tuple[dict[str, float], int]:
    """h2..h7 incast into h1 (deep queue at h1's port) while h0 receives from h1: h0's CTS
    to h1 cross that congested port. Returns h1's CTS latency summary and the max depth."""
    cfg = RnicConfig(chunk_bytes=64 * 1024, cts_window=2, qos=plan)
    sim, sw, nics, ips = star(8, cfg)
    hosts = [f"h{i}" for i in range(8)]
    bulk = wl.Deployment(wl.incast(hosts[2:], "h1", 512 * 1024, num_qps=2), nics, ips)
    probe = wl.Deployment(wl.fat_flows([("h1", "h0")], 512 * 1024), nics, ips, conn_id_base=50)
    bulk.start(0)
    probe.start(0)
    sim.kick_all()
    sim.run(10**11)
    assert bulk.done and probe.done
    lat = nics["h1"].counters.cts_latency_ns
    assert len(lat) == 8  # 512 KiB in 64 KiB chunks, one CTS each, all from h0
    return latency_summary(lat), sw.max_depth


def test_cts_priority_keeps_cts_latency_low() -> None:
    """Meta's choice: CTS in a high-priority class. Put CTS in the bulk class and it queues."""
    prio, depth = _cts_through_congestion(TrafficClassPlan())
    bulk, depth_b = _cts_through_congestion(TrafficClassPlan(dscp_cts=26))
    assert depth > 50 and depth_b > 50  # the port was congested both times
    assert prio["max"] < 20_000  # one frame time + propagation, not the queue
    assert prio["max"] * 5 < bulk["max"]


def test_endpoints_from_topology_like_hosts() -> None:
    from types import SimpleNamespace

    from emulator.traffic.endpoints import build_rnics, racks

    hosts = [
        SimpleNamespace(
            name=f"g{z}{r}{g}",
            mac=f"02:00:00:00:{z}{r}:{g:02x}",
            ip=f"10.{z}.{r}.{g + 1}",
            gateway_mac="02:00:00:00:ff:ff",
            zone=z,
            rack=r,
            port=SimpleNamespace(rate_bps=25_000_000_000),
        )
        for z in range(1)
        for r in range(2)
        for g in range(2)
    ]
    nics = build_rnics(hosts)
    assert set(nics) == {"g000", "g001", "g010", "g011"}
    assert nics["g010"].config.link_bps == 25e9 and nics["g010"].ip == "10.0.1.1"
    assert racks(hosts) == {"z0r0": ["g000", "g001"], "z0r1": ["g010", "g011"]}
    assert wl.place(2, racks(hosts), "spread") == ["g000", "g010"]


def test_workload_from_dict_and_errors() -> None:
    w = wl.workload_from_dict(
        {
            "kind": "allreduce",
            "hosts": ["a", "b", "c", "d"],
            "size_bytes": 4096,
            "algorithm": "halving_doubling",
            "num_qps": 16,
        }
    )
    assert (w.collective, w.algorithm, w.num_qps, len(w.rank_pairs())) == (
        "allreduce",
        "halving_doubling",
        16,
        4,
    )
    f = wl.workload_from_dict({"kind": "fat_flows", "pairs": [["a", "b"]], "size_bytes": 10})
    assert f.rank_pairs() == [(0, 1)]
    for bad, msg in [
        ({"kind": "allreduce", "size_bytes": 1}, "missing key 'hosts'"),
        ({"kind": "nope", "size_bytes": 1}, "unknown workload"),
        ({"kind": "incast", "senders": ["a"], "receiver": "b", "size_bytes": -1}, "positive"),
        ({"kind": "fat_flows", "pairs": [["a"]], "size_bytes": 5}, "pairs"),
        ({"kind": "allreduce", "hosts": ["a", "a"], "size_bytes": 8}, "twice"),
        ({"kind": "fat_flows", "pairs": [["a", "b"], ["a", "b"]], "size_bytes": 8}, "twice"),
    ]:
        with pytest.raises(UserError, match=msg):
            wl.workload_from_dict(bad)


def test_two_jobs_share_rnics_with_distinct_connection_ids() -> None:
    cfg = RnicConfig(chunk_bytes=32 * 1024)
    sim, _sw, nics, ips = star(4, cfg)
    j1 = wl.allreduce(["h0", "h1", "h2", "h3"], 1 << 18, "ring")
    j2 = wl.fat_flows([("h0", "h2"), ("h3", "h1")], 1 << 18, num_qps=2)
    d1 = wl.Deployment(j1, nics, ips)
    with pytest.raises(UserError, match="already in use"):
        wl.Deployment(j2, nics, ips)  # same connection ids -> same QPNs
    sim, _sw, nics, ips = star(4, cfg)
    d1 = wl.Deployment(j1, nics, ips)
    d2 = wl.Deployment(j2, nics, ips, conn_id_base=100)
    d1.start(0)
    d2.start(0)
    sim.kick_all()
    sim.run(10**11)
    assert d1.done and d2.done
    assert sum(r.bytes_received for r in d2.runners.values()) == 2 << 18
    assert d1.record().time_ns > 0 and d2.record().collective == "fat_flows"
