"""The STF runner: pass/fail detection, wildcards, priorities, CLI passthrough, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.main import main as fabemu
from emulator.target.errors import StfError
from emulator.target.stf import packet_bytes, run_stf, stf_to_cli

from .bmv2json import Program, assign, eth_ipv4_udp, fld, prim, rd
from .fakes import ipv4_udp

L3 = Path(__file__).parent / "programs" / "l3_ecmp.json"


def tern_program():
    p = Program()
    eth_ipv4_udp(p)
    fwd = p.action(
        "MyIngress.fwd", [("port", 9)], [assign(fld("standard_metadata", "egress_spec"), rd(0))]
    )
    drop = p.action("MyIngress.drop", [], [prim("mark_to_drop")])
    p.table(
        0,
        "MyIngress.t",
        [("ternary", ["ipv4", "dstAddr"], None), ("exact", ["udp", "dstPort"], None)],
        [fwd, drop],
        drop,
    )
    p.table(0, "MyIngress.l", [("lpm", ["ipv4", "srcAddr"], None)], [fwd, drop], drop)
    return p.doc


def write(tmp_path, text):
    f = tmp_path / "t.stf"
    f.write_text(text)
    return f


PKT = ipv4_udp(dst=0x0A010101, dport=4791).hex()


def test_larger_stf_priority_wins_and_wildcards(tmp_path):
    stf = write(
        tmp_path,
        f"""
# two overlapping ternary entries; priority 20 beats 10
add MyIngress.t 10 hdr.ipv4.dstAddr:0x0a****** dstPort:4791 fwd(port:1)
add t 20 dstAddr:0x0a01**** udp.dstPort:4791 MyIngress.fwd(port:2)
packet 0 {PKT}
expect 2 ************ 000000000005 0800 45 ** 001c ****
""",
    )
    result = run_stf(tern_program(), stf)
    assert result.passed, result.message
    assert result.outputs == {2: [bytes.fromhex(PKT)]}


def test_missing_unexpected_and_mismatch_fail(tmp_path):
    stf = write(
        tmp_path,
        f"""
add MyIngress.t 1 dstAddr:0x0a010101 dstPort:4791 fwd(port:3)
packet 0 {PKT}
expect 1 {PKT}
packet 0 {PKT}
expect 3 ffff
packet 0 {PKT}
expect 3 {PKT}00$
""",
    )
    result = run_stf(tern_program(), stf)
    assert not result.passed
    msg = result.message
    assert msg.startswith("STF FAIL")
    assert "port 1 packet 0: expected packet not received" in msg
    assert "port 3 packet 0: differs at nibble 0" in msg
    assert "port 3 packet 1: received packet too short" in msg
    assert "port 3 packet 2: unexpected packet" in msg


def test_exact_length_and_expect_any(tmp_path):
    stf = write(
        tmp_path,
        f"""
setdefault MyIngress.t fwd(port:4)
packet 0 {PKT}
expect 4 {PKT[:20]}$
""",
    )
    assert "length differs" in run_stf(tern_program(), stf).message
    stf = write(tmp_path, f"setdefault t fwd(port:4)\npacket 0 {PKT}\npacket 0 {PKT}\nexpect 4\n")
    assert run_stf(tern_program(), stf).passed


def test_lpm_nibbles_and_cli_passthrough(tmp_path):
    stf = write(
        tmp_path,
        f"""
act_prof_create_member ecmp_sel set_nhop 00:00:00:00:00:07 7
table_indirect_add ecmp 10.1.0.0/16 => 0
mirroring_add 3 9
packet 1 {PKT}
expect 7 000000000007 000000000000 0800 4500001c00010000 3f11
""",
    )
    assert run_stf(L3, stf).passed
    stf = write(
        tmp_path,
        f"""
add MyIngress.l srcAddr:0x0102**** fwd(port:5)
add MyIngress.t 1 dstAddr:0x0b000000 dstPort:1 fwd(port:1)
packet 0 {PKT}
expect 5 {PKT}
""",
    )
    doc = tern_program()
    doc["pipelines"][0]["tables"][0]["next_tables"] = {
        "MyIngress.fwd": "MyIngress.l",
        "MyIngress.drop": "MyIngress.l",
    }
    assert run_stf(doc, stf).passed


@pytest.mark.parametrize("line,message", [
    ("add nope 1 a:1 fwd(port:1)", "invalid table name"),
    ("add MyIngress.t 1 nokey:1 fwd(port:1)", "no key field 'nokey'"),
    ("add MyIngress.t 1 dstAddr:1 fwd(prt:1)", "takes \\(port\\)"),
    ("add MyIngress.t 1 dstAddr:1 fwd", "expected"),
    ("packet x 00", "port number"),
    ("packet 0 0g", "invalid hex"),
    ("expect 0 zz", "invalid hex pattern"),
    ("bogus 1 2", "unknown STF command"),
    ("table_add nope a =>", "invalid table name"),
    # names match exactly or as a dotted suffix, as p4c's STF runner: not "Ingress.t"
    ("add Ingress.t 1 dstAddr:1 fwd(port:1)", "invalid table name 'Ingress.t'"),
    ("add MyIngress.t 1 dstAddr:1 wd(port:1)", "invalid action for table MyIngress.t name 'wd'"),
])  # fmt: skip
def test_errors_name_file_and_line(tmp_path, line, message):
    stf = write(tmp_path, "# header\n" + line + "\n")
    with pytest.raises(StfError, match=r"t\.stf:2: .*" + message):
        run_stf(tern_program(), stf)


def test_fabemu_stf_command_exit_codes(tmp_path, capsys):
    good = write(tmp_path, f"setdefault t fwd(port:4)\npacket 0 {PKT}\nexpect 4 {PKT}\n")
    prog = tmp_path / "p.json"
    import json

    prog.write_text(json.dumps(tern_program()))
    assert fabemu(["stf", str(prog), str(good)]) == 0
    assert "STF PASS" in capsys.readouterr().out
    bad = tmp_path / "bad.stf"
    bad.write_text(f"packet 0 {PKT}\nexpect 4 {PKT}\n")
    assert fabemu(["stf", str(prog), str(bad)]) == 1
    assert "expected packet not received" in capsys.readouterr().out
    assert fabemu(["stf", str(prog), str(tmp_path / "missing.stf")]) == 2
    assert "cannot read STF file" in capsys.readouterr().err


def test_p4_input_uses_the_front_end_or_says_so(tmp_path):
    src = tmp_path / "x.p4"
    src.write_text("this is not P4\n")
    stf = write(tmp_path, "")
    try:
        from emulator.p4c import compile_file  # noqa: F401
    except ImportError:
        with pytest.raises(StfError, match=r"front end .* not available"):
            run_stf(src, stf)
    else:
        from emulator.errors import UserError

        with pytest.raises(UserError):
            run_stf(src, stf)


def test_cli_command_recreates_stf_entries(tmp_path):
    from emulator.target.stf import StfRunner, cli_command
    from emulator.target.switch import Switch

    runner = StfRunner(Switch(tern_program()))
    runner.command("add MyIngress.t 10 dstAddr:0x0a****** dstPort:4791 fwd(port:1)")
    runner.command("add MyIngress.l srcAddr:0x0102**** fwd(port:5)")
    runner.command("setdefault MyIngress.t fwd(port:6)")
    commands = [cli_command(t, e) for t in runner.sw.tables.values() for e in t.entries.values()]
    commands.append(
        cli_command(runner.sw.tables["MyIngress.t"], runner.sw.tables["MyIngress.t"].default)
    )
    assert (
        commands[0] == "table_add MyIngress.t MyIngress.fwd 167772160&&&4278190080 4791 => 1 9990"
    )
    replay = Switch(tern_program())
    for c in commands:
        replay.cli(c)
    for frame in (bytes.fromhex(PKT), ipv4_udp(dst=0x0B000001)):
        assert replay.process(0, frame) == runner.sw.process(0, frame)


def test_fabemu_stf_priority_queues_option(tmp_path, capsys):
    import json

    p = Program()
    eth_ipv4_udp(p)
    hi = p.action("MyIngress.hi", [], [
        assign(fld("standard_metadata", "egress_spec"), {"type": "hexstr", "value": "0x4"}),
        assign(fld("standard_metadata", "priority"), {"type": "hexstr", "value": "0x5"}),
    ])  # fmt: skip
    p.table(0, "MyIngress.t", [], [hi], hi)
    prog = tmp_path / "p.json"
    prog.write_text(json.dumps(p.doc))
    stf = write(tmp_path, f"packet 0 {PKT}\nexpect 4 {PKT}\n")
    assert fabemu(["stf", str(prog), str(stf)]) == 1  # one queue: priority 5 is dropped
    assert fabemu(["stf", "--priority-queues", "8", str(prog), str(stf)]) == 0
    assert fabemu(["stf", "--priority-queues", "99", str(prog), str(stf)]) == 2
    capsys.readouterr()


def test_a_trailing_odd_hex_digit_is_a_last_byte(tmp_path):
    """p4c's samples write packets such as ``... 20 0``: the last digit is a byte."""
    assert packet_bytes("20 0".replace(" ", "")) == b"\x20\x00"
    assert packet_bytes("abc") == b"\xab\x0c"
    stf = write(tmp_path, f"packet 0 {PKT}0\nexpect 0 {PKT}00$\n")
    doc = tern_program()
    default = doc["pipelines"][0]["tables"][0]["default_entry"]
    default.update(action_id=0, action_data=["0x0000"])  # fwd to port 0
    result = run_stf(doc, stf)
    assert result.passed and result.outputs[0][0].endswith(b"\x00")


def test_stf_to_cli_needs_no_program_when_the_stf_adds_no_entries(tmp_path):
    """Packets and CLI lines translate without loading the program (a program the target
    cannot load can still be replayed on the real switch)."""
    stf = write(tmp_path, "mirroring_add 5 4\npacket 1 0a0b\nexpect 1 0a0b\n")
    assert stf_to_cli({"not": "a program"}, stf) == [
        ("cli", "mirroring_add 5 4"),
        ("packet", (1, b"\x0a\x0b")),
    ]
