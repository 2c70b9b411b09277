"""Property tests: every valid spec resolves to a consistent, collision-free topology."""

from __future__ import annotations

import ipaddress
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.topology import LinkSpec, TopologySpec, resolve
from emulator.topology import addressing as ap
from emulator.topology.io import spec_from_dict, spec_to_dict
from emulator.topology.resolve import ResolvedTopology, iter_ports
from emulator.topology.units import format_delay, format_rate, parse_delay, parse_rate


@st.composite
def specs(draw: st.DrawFn) -> TopologySpec:
    """Valid small Clos specs, single- and multi-zone."""
    spines = draw(st.integers(1, 3))
    per_pair = draw(st.integers(1, 2))
    racks = draw(st.integers(1, 5))
    gpus = draw(st.integers(1, 5))
    zones = draw(st.integers(1, 3))
    aggs, over, up = 0, 1.0, 0
    if zones > 1:
        up = draw(st.integers(1, racks * per_pair))  # ATSW links per spine
        aggs = draw(st.sampled_from([d for d in range(1, up + 1) if up % d == 0]))
        over = racks * per_pair / up
    uplinks = spines * per_pair
    agg_ports = zones * spines * up // aggs if aggs else 0
    radix = max(gpus + uplinks, racks * per_pair + up, agg_ports) + draw(st.integers(0, 3))
    rate = draw(st.sampled_from([10**6, 10**7, 10**9]))
    return TopologySpec(
        "p", racks, gpus, spines, uplinks, zones=zones, aggs=aggs, oversubscription=over, radix=radix,
        host_link=LinkSpec(rate, draw(st.integers(0, 5000))), fabric_link=LinkSpec(rate, 1000),
        agg_link=LinkSpec(rate, 2000),
    )  # fmt: skip


def _unique(values: list[str]) -> bool:
    return not [v for v, n in Counter(values).items() if n > 1]


@settings(max_examples=60, deadline=None)
@given(specs())
def test_names_addresses_and_ports_are_unique(spec: TopologySpec) -> None:
    topo = resolve(spec)
    names = [h.name for h in topo.hosts] + [s.name for s in topo.switches]
    assert _unique(names)
    assert len(topo.hosts) == spec.hosts
    assert _unique([h.ip for h in topo.hosts] + [s.loopback_ip for s in topo.switches])
    macs = [h.mac for h in topo.hosts] + [s.mac for s in topo.switches]
    macs += [p.mac for s in topo.switches for p in s.ports]
    assert _unique(macs)
    assert all(
        int(m.split(":")[0], 16) & 0x02 and not int(m.split(":")[0], 16) & 0x01 for m in macs
    )
    assert sorted(s.device_id for s in topo.switches) == list(range(len(topo.switches)))
    for s in topo.switches:
        numbers = [p.number for p in s.ports]
        assert numbers == list(range(1, len(numbers) + 1))  # contiguous from 1
        assert len(numbers) <= spec.radix
        assert _unique([p.intf for p in s.ports])
        if s.role == "leaf":  # host-facing ports come first
            kinds = [p.kind for p in s.ports]
            assert kinds == ["host"] * spec.gpus_per_rack + ["up"] * spec.uplinks_per_leaf


@settings(max_examples=60, deadline=None)
@given(specs())
def test_links_are_consistent_on_both_sides(spec: TopologySpec) -> None:
    topo = resolve(spec)
    ports = {(node, p.number): p for node, p in iter_ports(topo)}
    assert len(ports) == 2 * len(topo.links)
    for lk in topo.links:
        pa, pb = ports[(lk.a, lk.a_port)], ports[(lk.b, lk.b_port)]
        assert (pa.peer, pa.peer_port) == (lk.b, lk.b_port)
        assert (pb.peer, pb.peer_port) == (lk.a, lk.a_port)
        assert pa.rate_bps == pb.rate_bps == lk.rate_bps
        assert pa.delay_ns == pb.delay_ns == lk.delay_ns
        assert topo.peer(lk.a, lk.a_port) == (lk.b, lk.b_port)
    n_leaves = spec.zones * spec.racks
    n_spines = spec.zones * spec.spines
    assert (
        len(topo.links)
        == spec.hosts + n_leaves * spec.uplinks_per_leaf + n_spines * spec.spine_uplinks
    )
    _check_tiers(topo)


def _check_tiers(topo: ResolvedTopology) -> None:
    role = {h.name: "host" for h in topo.hosts} | {s.name: s.role for s in topo.switches}
    allowed = {("host", "leaf", "host"), ("leaf", "spine", "fabric"), ("spine", "agg", "agg")}
    zone = {s.name: s.zone for s in topo.switches} | {h.name: h.zone for h in topo.hosts}
    for lk in topo.links:
        assert (role[lk.a], role[lk.b], lk.kind) in allowed
        if lk.kind != "agg":
            assert zone[lk.a] == zone[lk.b]  # leaves and spines only link inside their zone


@settings(max_examples=60, deadline=None)
@given(specs())
def test_addresses_follow_the_plan(spec: TopologySpec) -> None:
    topo = resolve(spec)
    for h in topo.hosts:
        leaf = topo.switch(h.leaf)
        net = ipaddress.ip_network(leaf.subnet or "")
        ip = ipaddress.ip_address(h.ip)
        assert ip in net and net.prefixlen == h.prefix_len == 24
        assert ip in ipaddress.ip_network(ap.zone_subnet(h.zone))
        assert h.gateway_ip == leaf.gateway_ip and ipaddress.ip_address(h.gateway_ip) in net
        assert ip not in ipaddress.ip_network("10.255.0.0/16")
        assert topo.peer(h.name, 0) == (h.leaf, h.leaf_port)
        assert h.gateway_mac == leaf.port(h.leaf_port).mac
    for s in topo.switches:
        assert ipaddress.ip_address(s.loopback_ip) in ipaddress.ip_network("10.255.0.0/16")


@settings(max_examples=40, deadline=None)
@given(specs())
def test_file_form_round_trips(spec: TopologySpec) -> None:
    assert spec_from_dict(spec_to_dict(spec)) == spec


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_host_mac_is_injective(a: int, b: int) -> None:
    assert (ap.host_mac(a) == ap.host_mac(b)) == (a == b)


@given(
    st.integers(0, 65535),
    st.integers(0, ap.MAX_PORT),
    st.integers(0, 65535),
    st.integers(0, ap.MAX_PORT),
)
def test_switch_mac_is_injective(d1: int, p1: int, d2: int, p2: int) -> None:
    assert (ap.switch_mac(d1, p1) == ap.switch_mac(d2, p2)) == ((d1, p1) == (d2, p2))


@given(st.integers(0, 10**13), st.integers(0, 10**10))
def test_units_round_trip(bps: int, ns: int) -> None:
    assert parse_rate(format_rate(bps)) == bps
    assert parse_delay(format_delay(ns)) == ns
