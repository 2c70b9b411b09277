"""Flow keys: addresses from the plan, the traffic layer's UDP sport formula, QPNs."""

from __future__ import annotations

import ipaddress

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.flowkeys import ROCEV2_UDP_PORT, flow_keys, gpu_ipv4, udp_sport

qpn = st.integers(min_value=0, max_value=2**24 - 1)


@settings(max_examples=300, deadline=None)
@given(qpn, qpn)
def test_udp_sport_matches_traffic_layer(lqpn: int, rqpn: int) -> None:
    from emulator.traffic.roce import udp_sport as reference

    assert int(udp_sport(lqpn, rqpn)) == reference(lqpn, rqpn)
    assert 0xC000 <= int(udp_sport(lqpn, rqpn)) <= 0xFFFF


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=24_575))
def test_ip_follows_the_topology_address_plan(gpu: int) -> None:
    from emulator.topology.addressing import host_ip

    f = meta_fabric(24_576)
    zone, rack, slot = gpu // 3072, (gpu // 16) % 192, gpu % 16
    got = str(ipaddress.IPv4Address(int(gpu_ipv4(f, np.array([gpu]))[0])))
    assert got == host_ip(zone, rack, slot)


def test_keys_are_seeded_and_qps_differ() -> None:
    f = meta_fabric(256)
    src, dst = np.array([0, 0, 0, 0]), np.array([200, 200, 200, 200])
    a = flow_keys(f, src, dst, slot=0, qp=np.arange(4), qps=4, seed=1)
    b = flow_keys(f, src, dst, slot=0, qp=np.arange(4), qps=4, seed=1)
    c = flow_keys(f, src, dst, slot=0, qp=np.arange(4), qps=4, seed=2)
    assert np.array_equal(a.sport, b.sport) and np.array_equal(a.dst_qpn, b.dst_qpn)
    assert not np.array_equal(a.dst_qpn, c.dst_qpn)
    assert len(set(a.dst_qpn.tolist())) == 4
    rows = a.rows(with_qp=True)
    assert rows.shape == (4, 16)
    assert int.from_bytes(bytes(rows[0, 11:13]), "big") == ROCEV2_UDP_PORT
    assert int.from_bytes(bytes(rows[0, 13:16]), "big") == int(a.dst_qpn[0])
