"""Uplink choice of every load-balancing mode equals the documented hash definition."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.control import FabricConfig, FabricController
from emulator.control.names import SET_SWITCH_CONFIG, SWITCH_CONFIG
from emulator.topology import load_clos, resolve
from emulator.vocab import HashAlgo, LbMode

from .roce_frames import Flow, flowlet_slot, ipv4_fields, lb_hash, roce_frame

TOPOS = ["two_rack_2spine", "two_rack_4spine"]
REMOTE_RACK = "10.0.1.0/24"


def _flows(topo, count: int = 24) -> list[Flow]:
    """Fixed flows from rack 0's hosts to rack 1's hosts (RoCE sports, distinct QPs)."""
    g = topo.spec.gpus_per_rack
    out = []
    for i in range(count):
        src = topo.host(f"h{i % g}")
        dst = topo.host(f"h{g + (i * 7) % g}")
        out.append(Flow(src.ip, dst.ip, 0xC000 + ((1021 * i) & 0x3FFF), 0x100 + 13 * i))
    return out


def _send(sw, topo, flow: Flow) -> tuple[int, bytes]:
    src = next(h for h in topo.hosts if h.ip == flow.src)
    out = sw.process(src.leaf_port, roce_frame(flow, src.gateway_mac, src.mac))
    assert len(out) == 1, f"{flow}: expected one frame out, got {out}"
    return out[0]


@pytest.mark.parametrize("name", TOPOS)
@pytest.mark.parametrize(
    ("mode", "algo"),
    [
        ("ecmp", "crc16"),
        ("ecmp", "crc32"),
        ("eecmp", "crc16"),
        ("eecmp", "crc32"),
        ("pinning", "crc16"),
    ],
)
def test_uplink_equals_hash_definition(make_switch, name: str, mode: str, algo: str) -> None:
    topo = resolve(load_clos(name))
    sw, ctl, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode=mode, hash_algos={"leaf": algo}))
    members = ctl.selection("rtsw0", REMOTE_RACK)
    assert len(members) == topo.spec.spines
    used = set()
    for flow in _flows(topo):
        port, frame = _send(sw, topo, flow)
        if mode == "pinning":
            dst = next(h for h in topo.hosts if h.ip == flow.dst)
            expected = members[dst.gpu % len(members)]
        else:
            expected = members[lb_hash(flow, mode, algo) % len(members)]
        assert port == expected.port, f"{mode}/{algo} {flow}"
        assert frame[0:6] == bytes.fromhex(expected.dmac.replace(":", ""))
        assert frame[6:12] == bytes.fromhex(topo.switch("rtsw0").port(port).mac.replace(":", ""))
        fields = ipv4_fields(frame)
        assert (fields["ttl"], fields["checksum_ok"]) == (63, 1)
        used.add(port)
    assert len(used) == len(members)  # every uplink carries some of the 24 flows


def test_mode_and_hash_change_at_run_time_without_recompiling(make_switch) -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    sw, ctl, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode="ecmp"))
    members = ctl.selection("rtsw0", REMOTE_RACK)
    flows = _flows(topo, 12)
    for mode, algo in [
        ("ecmp", "crc16"),
        ("eecmp", "crc32"),
        ("ecmp", "crc32"),
        ("eecmp", "crc16"),
    ]:
        sw.cli(
            f"table_set_default {SWITCH_CONFIG} {SET_SWITCH_CONFIG} 0 {LbMode(mode).code} "
            f"{HashAlgo(algo).code} 100"
        )
        got = [_send(sw, topo, f)[0] for f in flows]
        assert got == [members[lb_hash(f, mode, algo) % 4].port for f in flows], (mode, algo)


def _colliding_connections(topo) -> tuple[Flow, Flow]:
    """Two connections (one UDP 5-tuple each) that baseline ECMP puts on the same uplink."""
    h0, h1, h2, h3 = (topo.host(f"h{i}") for i in range(4))
    first = Flow(h0.ip, h2.ip, 0xC001, 0x20)
    want = lb_hash(first, "ecmp", "crc16") % 2
    for sport in range(0xC002, 0xC100):
        second = Flow(h1.ip, h3.ip, sport, 0x40)
        if lb_hash(second, "ecmp", "crc16") % 2 == want:
            return first, second
    raise AssertionError("no colliding sport in range")  # pragma: no cover


def test_eecmp_spreads_qps_of_connections_that_collide_under_ecmp(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    first, second = _colliding_connections(topo)
    # 4 QPs per connection, all sharing the connection's UDP 5-tuple
    qps = [Flow(c.src, c.dst, c.sport, c.qp + k) for c in (first, second) for k in range(4)]
    loads = {}
    for mode in ("ecmp", "eecmp"):
        sw, ctl, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode=mode))
        members = ctl.selection("rtsw0", REMOTE_RACK)
        ports = [_send(sw, topo, f)[0] for f in qps]
        assert ports == [members[lb_hash(f, mode, "crc16") % 2].port for f in qps]
        loads[mode] = sorted(ports.count(m.port) for m in members)
    assert loads["ecmp"] == [0, 8]  # both connections, all QPs, on one uplink
    assert loads["eecmp"][0] >= 2  # E-ECMP puts at least 2 of the 8 QPs on each uplink


def test_flowlet_switching_rehashes_after_an_idle_gap(make_switch) -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    gap_us = 100
    cfg = FabricConfig(lb_mode="flowlet", flowlet_gap_us=gap_us)
    sw, ctl, clock = make_switch(topo, "rtsw0", cfg)
    members = ctl.selection("rtsw0", REMOTE_RACK)
    flow = _flows(topo, 1)[0]
    state: dict[int, tuple[int, int]] = {}  # model of the registers: slot -> (last_us, id)
    times_us = [1_000, 1_050, 1_120, 1_400, 1_450, 5_000, 5_099, 5_300, 9_000, 20_000]
    seen = set()
    for t in times_us:
        clock.now = t * 1000
        last, fid = state.get(flowlet_slot(flow), (0, 0))
        if t - last > gap_us:
            fid += 1
        state[flowlet_slot(flow)] = (t, fid)
        port, _ = _send(sw, topo, flow)
        assert port == members[lb_hash(flow, "flowlet", "crc16", fid) % 4].port, t
        seen.add(port)
    assert state[flowlet_slot(flow)][1] == 6
    assert len(seen) > 1  # the flow moved between uplinks across flowlets


def test_repair_moves_flows_off_the_failed_uplink(make_switch) -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    sw, ctl, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode="eecmp"))
    failed_port = topo.switch("rtsw0").uplink_ports[2].number  # towards ctsw2
    flows = _flows(topo)
    before = [_send(sw, topo, f)[0] for f in flows]
    assert failed_port in before
    ctl.apply_diff(ctl.fail_link("rtsw0", "ctsw2"), {"rtsw0": sw})
    members = ctl.selection("rtsw0", REMOTE_RACK)
    assert failed_port not in [m.port for m in members]
    after = [_send(sw, topo, f)[0] for f in flows]
    assert after == [members[lb_hash(f, "eecmp", "crc16") % 3].port for f in flows]
    ctl.apply_diff(ctl.restore_link("rtsw0", "ctsw2"), {"rtsw0": sw})
    assert [_send(sw, topo, f)[0] for f in flows] == before


@pytest.mark.parametrize(
    ("name", "dst", "hops"), [("two_rack_2spine", "h3", 3), ("two_zone_atsw", "h9", 5)]
)
def test_end_to_end_across_the_fabric(make_switch, name: str, dst: str, hops: int) -> None:
    topo = resolve(load_clos(name))
    switches = {s.name: make_switch(topo, s.name)[0] for s in topo.switches}
    h0, target = topo.host("h0"), topo.host(dst)
    flow = Flow(h0.ip, target.ip, 0xC123, 0x77)
    node, port, frame = "rtsw0", h0.leaf_port, roce_frame(flow, h0.gateway_mac, h0.mac)
    path = []
    for _ in range(8):
        ((out_port, frame),) = switches[node].process(port, frame)
        path.append(node)
        node, port = topo.peer(node, out_port)
        if node == target.name:
            break
    assert node == target.name and path[0] == "rtsw0" and path[-1] == target.leaf
    assert len(path) == hops
    assert frame[0:6] == bytes.fromhex(target.mac.replace(":", ""))
    fields = ipv4_fields(frame)
    assert (fields["ttl"], fields["checksum_ok"], fields["qp"]) == (64 - hops, 1, 0x77)


@pytest.fixture(scope="module")
def eecmp_leaf(program_json):
    switch_mod = pytest.importorskip("emulator.target.switch")
    topo = resolve(load_clos("two_rack_4spine"))
    ctl = FabricController(topo, FabricConfig(lb_mode="eecmp"))
    node = topo.switch("rtsw0")
    sw = switch_mod.Switch(
        program_json, priority_queues=8, port_speed_bps={p.number: 1e10 for p in node.ports}
    )
    ctl.apply({"rtsw0": sw})
    return topo, ctl, sw


@settings(max_examples=60, deadline=None)
@given(
    sport=st.integers(0, 0xFFFF),
    qp=st.integers(0, 0xFFFFFF),
    dst=st.integers(1, 4),
    src=st.integers(0, 3),
    algo=st.sampled_from(["crc16", "crc32"]),
    eecmp=st.booleans(),
)
def test_any_flow_follows_the_hash_definition(eecmp_leaf, sport, qp, dst, src, algo, eecmp) -> None:
    topo, ctl, sw = eecmp_leaf
    mode = "eecmp" if eecmp else "ecmp"
    sw.cli(
        f"table_set_default {SWITCH_CONFIG} {SET_SWITCH_CONFIG} 0 {LbMode(mode).code} {HashAlgo(algo).code} 100"
    )
    flow = Flow(topo.host(f"h{src}").ip, f"10.0.1.{dst}", sport, qp)
    members = ctl.selection("rtsw0", REMOTE_RACK)
    assert _send(sw, topo, flow)[0] == members[lb_hash(flow, mode, algo) % 4].port


@pytest.mark.parametrize(
    ("mode", "algo", "lb", "member"),
    [("ecmp", "crc16", 0xABAA, 2), ("ecmp", "crc32", 0x1FDD, 1), ("eecmp", "crc16", 0x805E, 2)],
)
def test_worked_example_of_the_docs(
    make_switch, mode: str, algo: str, lb: int, member: int
) -> None:
    flow = Flow("10.0.0.1", "10.0.1.1", 0xC000, 0x000100)
    assert lb_hash(flow, mode, algo) == lb
    topo = resolve(load_clos("two_rack_4spine"))
    sw, ctl, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode=mode, hash_algos={"leaf": algo}))
    assert _send(sw, topo, flow)[0] == ctl.selection("rtsw0", REMOTE_RACK)[member].port
