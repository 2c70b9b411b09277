"""Issue 8's ECMP collision, end to end in virtual time (two_rack_4spine, 4 fat flows).

With 1 QP per connection and the 5-tuple hash (``ecmp``), seed 2's QPNs put two flows on
the same uplink of rtsw0 while another uplink idles: those two flows
get half the rate of the others. E-ECMP with 16 QPs (hash includes the destination QP)
spreads the 64 sub-flows so the leaf uplinks are nearly balanced.
"""

from __future__ import annotations

import ipaddress
from collections import Counter

from emulator.control import FabricConfig
from emulator.target.hashes import v1model_hash
from emulator.traffic.roce import udp_sport

from .vt_fabric import assert_conserved, config, run

PAIRS = [["h0", "h4"], ["h1", "h5"], ["h2", "h6"], ["h3", "h7"]]
SIZE = 256 * 1024
REMOTE_RACK = "10.0.1.0/24"
ROCE_DPORT = 4791


def _ip(s: str) -> int:
    return int(ipaddress.IPv4Address(s))


def _predicted_uplink(ctl, src_ip: str, dst_ip: str, sqpn: int, dqpn: int) -> str:
    """rtsw0's uplink for a 1-QP flow from the ecmp hash definition (crc16 on leaves)."""
    fields = [
        (_ip(src_ip), 32),
        (_ip(dst_ip), 32),
        (17, 8),
        (udp_sport(sqpn, dqpn), 16),
        (ROCE_DPORT, 16),
    ]
    members = ctl.selection("rtsw0", REMOTE_RACK)
    return f"rtsw0:{members[v1model_hash('crc16', fields, 0, 65536) % len(members)].port}"


def test_ecmp_collision_halves_the_collided_flows() -> None:
    # seed 2: QPNs (hence UDP source ports) put two flows on one uplink, one uplink idle
    cfg, ctl = config("two_rack_4spine", FabricConfig(lb_mode="ecmp"), seed=2)
    done, r, _ = run(cfg, {"kind": "fat_flows", "pairs": PAIRS, "size_bytes": SIZE})
    assert done and len(r.flows) == 4 and all(f.bytes == SIZE for f in r.flows)
    for f in r.flows:
        sqpn, dqpn = f.flow_id.src_qpn, f.flow_id.dst_qpn
        assert f.uplinks == [_predicted_uplink(ctl, f.src, f.dst, sqpn, dqpn)]
    per_uplink = Counter(f.uplinks[0] for f in r.flows)
    assert max(per_uplink.values()) == 2 and len(per_uplink) == 3  # a collision, an idle uplink
    uplink_bytes = {
        f"rtsw0:{ln.src_port}": ln.bytes for ln in r.links if ln.src == "rtsw0" and ln.up
    }
    idle = [u for u in uplink_bytes if u not in per_uplink]
    assert len(idle) == 1 and uplink_bytes[idle[0]] < 1000  # at most a few CTS/ACK frames
    collided = [f.throughput_bps for f in r.flows if per_uplink[f.uplinks[0]] == 2]
    alone = [f.throughput_bps for f in r.flows if per_uplink[f.uplinks[0]] == 1]
    assert len(collided) == 2 and len(alone) == 2
    ratio = (sum(collided) / 2) / (sum(alone) / 2)
    assert 0.45 < ratio < 0.55, ratio
    assert r.totals.drops == 0
    assert_conserved(r)


def test_eecmp_with_16_qps_balances_the_uplinks() -> None:
    cfg, _ = config("two_rack_4spine", FabricConfig(lb_mode="eecmp"), rnic={"chunk_bytes": 16384})
    work = {"kind": "fat_flows", "pairs": PAIRS, "size_bytes": SIZE, "num_qps": 16}
    done, r, _ = run(cfg, work)
    assert done and len(r.flows) == 64 and sum(f.bytes for f in r.flows) == 4 * SIZE
    loads = [ln.bytes for ln in r.links if ln.src == "rtsw0" and ln.up]
    assert len(loads) == 4 and min(loads) > 0
    mean = sum(loads) / len(loads)
    assert max(loads) / mean < 1.2, loads
    used = {u for f in r.flows for u in f.uplinks}
    assert len(used) == 4
    assert_conserved(r)
