"""Action profiles and selectors: BMv2 member/group semantics, crc16 ECMP over the 5-tuple."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from emulator.target.errors import CliError
from emulator.target.hashes import crc16
from emulator.target.switch import Switch

from .fakes import FifoTM, csum, ipv4_udp

PROGRAM = Path(__file__).parent / "programs" / "l3_ecmp.json"


def ecmp_switch(order=(0, 1, 2, 3)):
    sw = Switch(str(PROGRAM), tm=FifoTM(lambda: 0))
    for port in (1, 2, 3, 4):
        sw.cli(
            f"act_prof_create_member MyIngress.ecmp_sel MyIngress.set_nhop 00:00:00:00:00:0{port} {port}"
        )
    sw.cli("act_prof_create_group ecmp_sel")
    for m in order:  # insertion order must not matter: members are ordered by handle
        sw.cli(f"act_prof_add_member_to_group ecmp_sel {m} 0")
    sw.cli("table_indirect_add_with_group ecmp 10.0.0.0/8 => 0")
    return sw


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (3, 1, 0, 2)])
def test_forty_flows_pick_member_crc16_mod_n(order):
    sw = ecmp_switch(order)
    for i in range(40):
        src, dst, sport, dport = 0x0B000000 + i * 7, 0x0A000001 + i, 1000 + 13 * i, 4791
        five = struct.pack("!IIBHH", src, dst, 17, sport, dport)
        assert len(five) == 13
        expected_port = 1 + crc16(five) % 4
        [(port, _)] = sw.process(1, ipv4_udp(src=src, dst=dst, sport=sport, dport=dport))
        assert port == expected_port, f"flow {i}"


def test_l3_rewrite_ttl_and_checksum():
    sw = ecmp_switch()
    [(port, out)] = sw.process(1, ipv4_udp(ttl=64, payload=b"hello"))
    assert out[0:6] == bytes.fromhex(f"00000000000{port}")
    assert out[6:12] == b"\x00" * 6  # old dst becomes src
    assert out[22] == 63
    ip = out[14:34]
    assert csum(ip) == 0  # header checksum recomputed
    assert out.endswith(b"hello")


def test_member_table_entry_and_removal_from_group():
    sw = ecmp_switch()
    sw.cli("table_indirect_add ecmp 11.0.0.0/8 => 2")  # direct member handle 2 -> port 3
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0B000001))
    assert port == 3
    for m in (0, 1, 2):
        sw.cli(f"act_prof_remove_member_from_group ecmp_sel {m} 0")
    for i in range(10):
        [(port, _)] = sw.process(1, ipv4_udp(dst=0x0A000001 + i))
        assert port == 4


def test_modify_member_and_indirect_delete_as_simple_switch_cli():
    """act_prof_modify_member changes a member every reference sees (a direct entry and a
    group); table_indirect_delete removes an indirect entry; table_indirect_reset_default
    is table_reset_default (commands found missing by a differential probe)."""
    sw = ecmp_switch()
    sw.cli("table_indirect_add ecmp 11.0.0.0/8 => 2")  # entry handle 1: member 2 -> port 3
    sw.cli("act_prof_modify_member ecmp_sel set_nhop 2 => 00:00:00:00:00:09 9")
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0B000001))
    assert port == 9
    for m in (0, 1, 3):
        sw.cli(f"act_prof_remove_member_from_group ecmp_sel {m} 0")
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0A000001))  # the group's last member
    assert port == 9
    sw.cli("table_indirect_delete ecmp 1")
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0B000001))  # a miss: no action, port 0
    assert port == 0
    sw.cli("table_indirect_reset_default ecmp")
    with pytest.raises(CliError, match="invalid member handle 7"):
        sw.cli("act_prof_modify_member ecmp_sel set_nhop 7 => 00:00:00:00:00:01 1")


def test_empty_group_is_a_miss_and_defaults():
    """A group emptied while an entry uses it: a miss here (simple_switch accepts the
    commands, then forwards nothing more once a packet selects from the empty group)."""
    sw = Switch(str(PROGRAM), tm=FifoTM(lambda: 0))
    sw.cli("act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:09 9")
    sw.cli("act_prof_create_group ecmp_sel")
    sw.cli("act_prof_add_member_to_group ecmp_sel 0 0")
    sw.cli("table_indirect_add_with_group ecmp 10.0.0.0/8 => 0")
    sw.cli("act_prof_remove_member_from_group ecmp_sel 0 0")
    [(port, _)] = sw.process(1, ipv4_udp())  # miss, no default: egress_spec unset -> port 0
    assert port == 0
    assert sw.tables["MyIngress.ecmp"].empty_group_misses == 1
    sw.cli("table_indirect_set_default ecmp 0")
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0C000001))
    assert port == 9
    [(port, _)] = sw.process(1, ipv4_udp())  # empty group now falls back to the default
    assert port == 9
    sw.cli("act_prof_add_member_to_group ecmp_sel 0 0")
    sw.cli("table_indirect_set_default_with_group ecmp 0")
    [(port, _)] = sw.process(1, ipv4_udp(dst=0x0C000001))
    assert port == 9


def test_profile_errors():
    sw = ecmp_switch()
    with pytest.raises(CliError, match="invalid member handle"):
        sw.cli("act_prof_add_member_to_group ecmp_sel 99 0")
    with pytest.raises(CliError, match="invalid group handle"):
        sw.cli("table_indirect_add_with_group ecmp 12.0.0.0/8 => 7")
    with pytest.raises(CliError, match="already in group"):
        sw.cli("act_prof_add_member_to_group ecmp_sel 0 0")
    with pytest.raises(CliError, match="is in a group"):
        sw.cli("act_prof_delete_member ecmp_sel 0")
    with pytest.raises(CliError, match="indirect"):
        sw.cli("table_add ecmp set_nhop 10.0.0.0/8 => 1 1")


def test_compiled_reference_program_matches_the_hand_written_json():
    p4c = pytest.importorskip("emulator.p4c", reason="fabemu's P4 front end is not available")
    src = Path(__file__).resolve().parents[2] / "benchmarks" / "l3_ecmp.p4"
    compiled = Switch(p4c.compile_file(str(src)), tm=FifoTM(lambda: 0))
    hand = ecmp_switch()
    for port in (1, 2, 3, 4):
        compiled.cli(f"act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:0{port} {port}")
    compiled.cli("act_prof_create_group ecmp_sel")
    for m in range(4):
        compiled.cli(f"act_prof_add_member_to_group ecmp_sel {m} 0")
    compiled.cli("table_indirect_add_with_group ecmp 10.0.0.0/8 => 0")
    for i in range(40):
        frame = ipv4_udp(src=0x0B000000 + 3 * i, dst=0x0A000001 + i, sport=2000 + i, ttl=9)
        assert compiled.process(1, frame) == hand.process(1, frame)
    assert compiled.process(1, ipv4_udp(dst=0x0C000001)) == hand.process(
        1, ipv4_udp(dst=0x0C000001)
    )
