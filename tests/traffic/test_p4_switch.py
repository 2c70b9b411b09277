"""RNICs through the real fabric program (roce_fabric.p4 on the built-in target), one leaf."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.traffic import workloads as wl
from emulator.traffic.dcqcn import DcqcnConfig
from emulator.traffic.endpoints import build_rnics
from emulator.traffic.rnic import RnicConfig
from emulator.vocab import TC_BULK

from .netsim import Sim
from .p4net import P4Leaf, SimClock

PROGRAM = Path(__file__).resolve().parents[2] / "p4" / "roce_fabric.p4"
RATE = 1_000_000_000


@pytest.fixture(scope="module")
def program_json() -> dict[str, Any]:
    p4c = pytest.importorskip("emulator.p4c")
    if not PROGRAM.exists() or not hasattr(p4c, "compile_file"):
        pytest.skip("roce_fabric.p4 or the P4 front end is not available")
    return p4c.compile_file(str(PROGRAM))


def _leaf(
    program_json: dict[str, Any],
    pfc: bool,
    gpus: int = 4,
    dcqcn: bool = False,
    rate: int = RATE,
    rto_ns: int | None = 5_000_000,
):
    control = pytest.importorskip("emulator.control")
    switch_mod = pytest.importorskip("emulator.target.switch")
    tm_mod = pytest.importorskip("emulator.target.tm")
    topo_mod = pytest.importorskip("emulator.topology")
    link = topo_mod.LinkSpec(rate_bps=rate, delay_ns=1000)
    spec = topo_mod.TopologySpec(
        name="leaf",
        racks=2,
        gpus_per_rack=gpus,
        spines=2,
        uplinks_per_leaf=2,
        radix=16,
        host_link=link,
        fabric_link=link,
    )
    topo = topo_mod.resolve(spec)
    cfg = control.FabricConfig(
        pfc=control.PfcConfig(enabled=pfc, xoff=12, xon=4, quanta=200),
        queue_depth=48,
        ecn_thresholds=((TC_BULK, 6),) if dcqcn else (),
    )
    ctl = control.FabricController(topo, cfg)
    node = topo.switch("rtsw0")
    sim = Sim()
    clock = SimClock(sim)
    sw = switch_mod.Switch(
        program_json,
        device_id=node.device_id,
        priority_queues=8,
        clock=clock,
        port_speed_bps=node.port_speeds_bps,
        tm=tm_mod.TrafficManager(clock, 8, serialize=True),  # egress links at line rate
    )
    ctl.apply({"rtsw0": sw})
    hosts = [h for h in topo.hosts if h.leaf == "rtsw0"]
    rcfg = RnicConfig(chunk_bytes=16 * 1024, rto_ns=rto_ns, dcqcn=DcqcnConfig() if dcqcn else None)
    nics = build_rnics(hosts, rcfg)
    leaf = P4Leaf(sim, sw, 1000, rate)
    for h in hosts:
        leaf.attach(nics[h.name], h.leaf_port)
    return sim, sw, leaf, nics, {h.name: h.ip for h in hosts}, [h.name for h in hosts]


def _run(sim, dep) -> None:
    dep.start(0)
    sim.kick_all()
    sim.run(10**11, max_events=2_000_000)
    assert dep.done


def test_ring_allreduce_through_the_p4_leaf(program_json) -> None:
    sim, sw, _leaf_node, nics, ips, names = _leaf(program_json, pfc=True)
    dep = wl.Deployment(wl.allreduce(names, 64 * 1024, "ring", num_qps=2), nics, ips)
    _run(sim, dep)
    assert sum(r.bytes_sent for r in dep.runners.values()) == 2 * 3 * 64 * 1024
    for nic in nics.values():
        c = nic.counters
        assert c.icrc_errors == 0  # TTL decrement / MAC rewrite keep the ICRC valid
        assert c.not_for_us == 0 and c.unknown_qp == 0
        assert c.retransmitted_pkts == 0
    assert sw.stats["tail_dropped"] == 0
    assert dep.record().busbw_Bps > 0


@pytest.mark.parametrize("pfc", [True, False])
def test_incast_through_the_p4_leaf(program_json, pfc: bool) -> None:
    """3:1 incast at line rate: PFC makes it lossless; without PFC go-back-N recovers drops."""
    sim, sw, _leaf_node, nics, ips, names = _leaf(program_json, pfc=pfc)
    size = 256 * 1024
    w = wl.incast(names[1:], names[0], size, num_qps=2)
    dep = wl.Deployment(w, nics, ips)
    _run(sim, dep)
    assert dep.runners[names[0]].bytes_received == 3 * size
    assert nics[names[0]].counters.rx_payload_bytes == 3 * size
    senders = [nics[n].counters for n in names[1:]]
    if pfc:
        assert sw.stats["tail_dropped"] == 0
        assert sum(c.pauses_honoured for c in senders) > 0
        assert sum(c.retransmitted_pkts for c in senders) == 0
    else:
        assert sw.stats["tail_dropped"] > 0
        assert sum(c.pauses_honoured for c in senders) == 0
        assert sum(c.retransmitted_pkts for c in senders) > 0


def test_switch_ecn_marks_drive_dcqcn(program_json) -> None:
    """The program CE-marks above its threshold; the receiver sends CNPs; senders slow down."""
    sim, sw, _leaf_node, nics, ips, names = _leaf(program_json, pfc=True, dcqcn=True)
    size = 256 * 1024
    dep = wl.Deployment(wl.incast(names[1:], names[0], size), nics, ips)
    _run(sim, dep)
    assert dep.runners[names[0]].bytes_received == 3 * size
    assert nics[names[0]].counters.cnps_sent > 0
    senders = [nics[n].counters for n in names[1:]]
    assert sum(c.cnps_received for c in senders) == nics[names[0]].counters.cnps_sent
    assert sw.stats["tail_dropped"] == 0


def test_lossless_incast_at_10mbps_has_no_spurious_timeouts(program_json) -> None:
    """8:1 incast over 16 QPs each at fabemu's default 10 Mb/s with PFC and the default RTO:
    packets wait long behind PFC-paused queues, yet nothing is dropped or retransmitted."""
    sim, sw, _leaf_node, nics, ips, names = _leaf(
        program_json, pfc=True, gpus=9, rate=10_000_000, rto_ns=None
    )
    size = 64 * 1024
    dep = wl.Deployment(wl.incast(names[1:], names[0], size, num_qps=16), nics, ips)
    _run(sim, dep)
    assert dep.runners[names[0]].bytes_received == 8 * size
    senders = [nics[n].counters for n in names[1:]]
    assert sw.stats["tail_dropped"] == 0
    assert sum(c.pauses_honoured for c in senders) > 0
    assert sum(c.retransmitted_pkts + c.timeouts for c in senders) == 0
