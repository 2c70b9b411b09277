"""Resolve: names, ports, addresses and links of small Clos fabrics."""

from __future__ import annotations

import dataclasses

import pytest

from emulator.topology import LinkSpec, TopologyError, TopologySpec, load_clos, resolve
from emulator.topology.resolve import iter_ports


def _two_rack() -> TopologySpec:
    return TopologySpec("t", racks=2, gpus_per_rack=2, spines=2, uplinks_per_leaf=2)


def test_two_rack_names_and_roles() -> None:
    topo = resolve(_two_rack())
    assert [h.name for h in topo.hosts] == ["h0", "h1", "h2", "h3"]
    assert [(s.name, s.role, s.device_id) for s in topo.switches] == [
        ("rtsw0", "leaf", 0),
        ("rtsw1", "leaf", 1),
        ("ctsw0", "spine", 2),
        ("ctsw1", "spine", 3),
    ]
    assert len(topo.links) == 4 + 4


def test_leaf_ports_hosts_first_then_uplinks() -> None:
    leaf = resolve(_two_rack()).switch("rtsw1")
    assert [(p.number, p.peer, p.peer_port, p.kind) for p in leaf.ports] == [
        (1, "h2", 0, "host"),
        (2, "h3", 0, "host"),
        (3, "ctsw0", 2, "up"),
        (4, "ctsw1", 2, "up"),
    ]
    assert leaf.subnet == "10.0.1.0/24" and leaf.gateway_ip == "10.0.1.254"
    assert [p.number for p in leaf.host_ports] == [1, 2]
    assert [p.number for p in leaf.uplink_ports] == [3, 4]


def test_host_addresses_and_gateway() -> None:
    topo = resolve(_two_rack())
    h3 = topo.host("h3")
    assert (h3.zone, h3.rack, h3.gpu) == (0, 1, 1)
    assert h3.ip == "10.0.1.2" and h3.prefix_len == 24
    assert h3.mac == "02:a0:00:00:00:03" == h3.port.mac
    assert h3.gateway_ip == "10.0.1.254"
    assert h3.leaf == "rtsw1" and h3.leaf_port == 2
    assert h3.gateway_mac == topo.switch("rtsw1").port(2).mac == "02:b0:00:01:00:02"
    assert topo.switch("ctsw1").mac == "02:b0:00:03:00:00"
    assert topo.switch("ctsw1").loopback_ip == "10.255.0.3"


def test_parallel_links_per_leaf_spine_pair() -> None:
    spec = TopologySpec("p", racks=2, gpus_per_rack=2, spines=2, uplinks_per_leaf=4)
    topo = resolve(spec)
    # uplink k -> spine k % 2: rtsw0 ports 3,5 -> ctsw0 and 4,6 -> ctsw1
    pairs = topo.links_between("rtsw0", "ctsw0")
    assert [(lk.a_port, lk.b_port) for lk in pairs] == [(3, 1), (5, 2)]
    assert [(p.number, p.peer) for p in topo.switch("ctsw0").ports] == [
        (1, "rtsw0"),
        (2, "rtsw0"),
        (3, "rtsw1"),
        (4, "rtsw1"),
    ]


def test_two_zone_atsw_layer() -> None:
    topo = resolve(load_clos("two_zone_atsw"))
    assert len(topo.hosts) == 16
    assert len(topo.switches_by_role("leaf")) == 8
    assert len(topo.switches_by_role("spine")) == 4
    assert [s.name for s in topo.switches_by_role("agg")] == ["atsw0", "atsw1"]
    h9 = topo.host("h9")
    assert (h9.zone, h9.rack, h9.ip, h9.leaf) == (1, 0, "10.1.0.2", "rtsw4")
    ctsw2 = topo.switch("ctsw2")
    assert ctsw2.zone == 1 and [p.peer for p in ctsw2.uplink_ports] == ["atsw0", "atsw1"]
    assert [p.peer for p in topo.switch("atsw1").ports] == ["ctsw0", "ctsw1", "ctsw2", "ctsw3"]
    agg = [lk for lk in topo.links if lk.kind == "agg"]
    assert len(agg) == 8 and {lk.delay_ns for lk in agg} == {2000}
    # oversubscription 2: 4 leaf links down, 2 ATSW links up per spine
    assert len(ctsw2.downlink_ports) == 4 and len(ctsw2.uplink_ports) == 2


def test_link_rates_and_delays_come_from_the_spec() -> None:
    spec = dataclasses.replace(
        _two_rack(), host_link=LinkSpec(25_000_000, 500), fabric_link=LinkSpec(100_000_000, 3000)
    )
    topo = resolve(spec)
    assert {(lk.kind, lk.rate_bps, lk.delay_ns) for lk in topo.links} == {
        ("host", 25_000_000, 500),
        ("fabric", 100_000_000, 3000),
    }
    assert spec.rate_scale == 25_000_000 / 400e9
    assert spec.leaf_oversubscription == 2 * 25e6 / (2 * 100e6)


def test_peer_lookup_and_errors() -> None:
    topo = resolve(_two_rack())
    assert topo.peer("rtsw0", 3) == ("ctsw0", 1)
    assert topo.peer("ctsw0", 1) == ("rtsw0", 3)
    assert topo.peer("h0", 0) == ("rtsw0", 1)
    with pytest.raises(TopologyError, match="rtsw0 port 9 is not connected"):
        topo.peer("rtsw0", 9)
    with pytest.raises(TopologyError, match="no host 'h99'"):
        topo.host("h99")
    with pytest.raises(TopologyError, match="no switch 'x'"):
        topo.switch("x")
    with pytest.raises(TopologyError, match="has no port 7"):
        topo.switch("rtsw0").port(7)
    assert topo.is_host("h1") and not topo.is_host("rtsw0")


def test_resolve_is_deterministic_and_leaves_spec_alone() -> None:
    spec = load_clos("ai_zone_small")
    before = dataclasses.asdict(spec)
    a, b = resolve(spec), resolve(spec)
    assert a == b and a.to_dict() == b.to_dict()
    assert dataclasses.asdict(spec) == before
    assert a.spec is spec


def test_graph_view() -> None:
    topo = resolve(load_clos("ai_zone_small"))
    g = topo.graph()
    assert g.number_of_nodes() == 32 + 8 + 4
    assert g.number_of_edges() == len(topo.links) == 32 + 8 * 4
    assert g.nodes["ctsw3"]["role"] == "spine" and g.nodes["h5"]["ip"] == "10.0.1.2"
    import networkx as nx

    assert nx.is_connected(g)
    assert nx.shortest_path_length(g, "h0", "h31") == 4


def test_iter_ports_covers_every_link_end_once() -> None:
    topo = resolve(load_clos("two_zone_atsw"))
    ends = {(node, p.number) for node, p in iter_ports(topo)}
    link_ends = {(lk.a, lk.a_port) for lk in topo.links} | {(lk.b, lk.b_port) for lk in topo.links}
    assert ends == link_ends and len(ends) == 2 * len(topo.links)


def test_scale_spec_cannot_be_resolved() -> None:
    from emulator.topology import load_spec

    with pytest.raises(TopologyError, match="only an emulated Clos"):
        resolve(load_spec("meta_24k"))  # type: ignore[arg-type]
