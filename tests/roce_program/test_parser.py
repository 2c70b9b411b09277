"""Parser coverage: 802.1Q, BTH with RETH / AETH / neither; only L2/L3 fields are rewritten."""

from __future__ import annotations

import pytest

from emulator.control import FabricConfig
from emulator.topology import load_clos, resolve

from .roce_frames import Flow, roce_frame


def _rewritten(frame: bytes, out: bytes, ip_off: int) -> None:
    """Everything after the IPv4 TTL/checksum is untouched; TTL went down by one."""
    assert len(out) == len(frame)
    assert out[ip_off + 8] == frame[ip_off + 8] - 1
    assert out[ip_off + 12 :] == frame[ip_off + 12 :]  # addresses, UDP, BTH, ext. headers


@pytest.mark.parametrize("opcode", [0x0A, 0x04, 0x11, 0x0C])  # WRITE only, SEND only, ACK, READ req
def test_roce_opcodes_are_forwarded_intact(make_switch, opcode: int) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, _, _ = make_switch(topo, "rtsw0", FabricConfig(lb_mode="eecmp"))
    h0 = topo.host("h0")
    frame = roce_frame(Flow(h0.ip, "10.0.1.1", 0xC000, 0x42), h0.gateway_mac, h0.mac, opcode=opcode)
    ((_, out),) = sw.process(h0.leaf_port, frame)
    _rewritten(frame, out, 14)


def test_vlan_tagged_frames_are_routed_with_their_tag(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, ctl, _ = make_switch(topo, "rtsw0")
    h0 = topo.host("h0")
    plain = roce_frame(Flow(h0.ip, "10.0.1.1", 0xC000, 0x42), h0.gateway_mac, h0.mac)
    tagged = plain[:12] + bytes.fromhex("8100" + "6064") + plain[12:]  # PCP 3, VID 100
    ((port, out),) = sw.process(h0.leaf_port, tagged)
    assert port in [m.port for m in ctl.selection("rtsw0", "10.0.1.0/24")]
    assert out[12:16] == bytes.fromhex("81006064")
    _rewritten(tagged, out, 18)
