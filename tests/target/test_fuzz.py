"""Property: random and mutated frames never raise, not even inside the switch's safety net."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.switch import Switch

from .fakes import FifoTM, ipv4_udp
from .test_packet_parser import parser_program
from .test_v1model import flow_program

L3 = Path(__file__).parent / "programs" / "l3_ecmp.json"


def _switches() -> list[Switch]:
    l3 = Switch(str(L3), tm=FifoTM(lambda: 0))
    for cmd in ("act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:01 1",
                "act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:02 2",
                "act_prof_create_group ecmp_sel", "act_prof_add_member_to_group ecmp_sel 0 0",
                "act_prof_add_member_to_group ecmp_sel 1 0",
                "table_indirect_add_with_group ecmp 0.0.0.0/0 => 0"):  # fmt: skip
        l3.cli(cmd)
    parser = Switch(parser_program(), tm=FifoTM(lambda: 0))
    parser.cli("pvs_add pvs 0x7777")
    flow = Switch(flow_program(), tm=FifoTM(lambda: 0))
    flow.cli("mirroring_add 5 4")
    flow.cli("mc_mgrp_create 7")
    flow.cli("mc_node_create 1 1 2 3")
    flow.cli("mc_node_associate 7 0")
    for etype, action in ((0x0800, "clone_fwd 0x0800 => 2 5"), (0x0001, "resub 0x0001 =>"),
                          (0x0002, "mcast 0x0002 => 7"), (0x0003, "learn 0x0003 =>")):  # fmt: skip
        flow.cli(f"table_add ti {action}")
        del etype
    flow.cli("table_add te e_recirc 0x0800 =>")
    return [l3, parser, flow]


SWITCHES = _switches()
SEEDS = [
    ipv4_udp(payload=b"x" * 30),
    b"\x00" * 12 + b"\x88\x47" + bytes.fromhex("0000514000006140") + ipv4_udp()[14:],
    b"\x00" * 12 + b"\x88\xb6" + ipv4_udp()[14:],
    b"\x00" * 12 + b"\x00\x01" + b"abc",
]


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(st.binary(max_size=120))
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(data) - 1))
        data[i] = draw(st.integers(0, 255))
    return bytes(data[: draw(st.integers(0, len(data)))])


@settings(max_examples=300, deadline=None)
@given(frames(), st.integers(0, 3))
def test_random_frames_never_raise(frame: bytes, port: int) -> None:
    for sw in SWITCHES:
        out = sw.process(port, frame)
        assert all(0 <= p < 511 and isinstance(b, bytes) for p, b in out)
        assert sw.stats["errors"] == 0, list(sw.log_lines)[-3:]
