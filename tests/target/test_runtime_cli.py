"""simple_switch_CLI text: value syntax, command output, and clear errors for mistakes."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.target.cli_values import format_match, parse_int, parse_match
from emulator.target.errors import CliError
from emulator.target.runtime_cli import RuntimeCli
from emulator.target.switch import Switch
from emulator.target.tables import KeyField

from .bmv2json import Program, assign, eth_ipv4_udp, fld, prim, rd
from .fakes import FifoTM


@pytest.mark.parametrize("text,width,value", [
    ("10", 8, 10), ("0x0a", 8, 10), ("0b101", 4, 5), ("10.1.2.3", 32, 0x0A010203),
    ("00:12:34:56:78:9a", 48, 0x00123456789A), ("1080::8:800:200C:417A", 128,
                                                  0x108000000000000000080800200C417A),
])  # fmt: skip
def test_parse_int_syntaxes(text, width, value):
    assert parse_int(text, width, "x") == value


@pytest.mark.parametrize(
    "text,width", [("256", 8), ("-1", 8), ("zz", 8), ("1.2.3", 32), ("300.1.1.1", 32)]
)
def test_parse_int_rejects(text, width):
    with pytest.raises(CliError):
        parse_int(text, width, "x")


def test_parse_match_kinds():
    assert parse_match("10.1.2.3/16", KeyField("k", "lpm", 32)) == (0x0A010000, 16)
    assert parse_match("0x0a&&&0xf0", KeyField("k", "ternary", 8)) == (0x00, 0xF0)
    assert parse_match("1->5", KeyField("k", "range", 8)) == (1, 5)
    assert parse_match("7&&&0", KeyField("k", "optional", 8)) == (0, 0)
    assert parse_match("true", KeyField("k", "valid", 1)) == 1
    for bad, kind in [
        ("1", "lpm"),
        ("1/33", "lpm"),
        ("1", "ternary"),
        ("5->1", "range"),
        ("1-2", "range"),
    ]:
        with pytest.raises(CliError):
            parse_match(bad, KeyField("k", kind, 32))
    assert format_match((0x0A000000, 8), KeyField("k", "lpm", 32)) == "LPM-0a:00:00:00/8"


def _make_switch():
    p = Program()
    eth_ipv4_udp(p)
    fwd = p.action(
        "MyIngress.fwd",
        [("port", 9), ("mac", 48)],
        [
            assign(fld("standard_metadata", "egress_spec"), rd(0)),
            assign(fld("ethernet", "dstAddr"), rd(1)),
        ],
    )
    drop = p.action("MyIngress.drop", [], [prim("mark_to_drop")])
    p.table(0, "MyIngress.ipv4_lpm", [("lpm", ["ipv4", "dstAddr"], None)], [fwd, drop], drop)
    p.table(0, "MyEgress.ipv4_lpm2", [("ternary", ["ipv4", "dstAddr"], None)], [fwd, drop], drop)
    return Switch(p.doc, tm=FifoTM(lambda: 0))


@pytest.fixture
def sw():
    return _make_switch()


_SW = _make_switch()


def test_table_add_output_like_simple_switch_cli(sw):
    out = sw.cli("table_add MyIngress.ipv4_lpm MyIngress.fwd 10.0.0.0/8 => 3 00:00:00:00:00:01")
    assert out.splitlines()[0] == "Adding entry to lpm match table MyIngress.ipv4_lpm"
    assert "match key:           LPM-0a:00:00:00/8" in out
    assert "runtime data:        00:03\t00:00:00:00:00:01" in out
    assert out.endswith("Entry has been added with handle 0")
    out = sw.cli("table_add ipv4_lpm2 fwd 10.0.0.0&&&255.0.0.0 => 1 0 7")
    assert out.endswith("handle 0")
    assert "Priority: 7" in sw.cli("table_dump ipv4_lpm2")
    assert "MyIngress.ipv4_lpm" in sw.cli("show_tables")
    assert "MyIngress.fwd" in sw.cli("show_actions")
    assert sw.cli("# comment") == "" and sw.cli("   ") == ""


@pytest.mark.parametrize("line,message", [
    ("table_add nope fwd 1/8 => 1 2", "invalid table name 'nope'"),
    ("table_add ipv4_lpm nope 1/8 => 1 2", "invalid action"),
    ("table_add ipv4_lpm fwd 10.0.0.0/8 => 1", "expected 2 action parameter"),
    ("table_add ipv4_lpm fwd 10.0.0.0/8 10.0.0.0/8 => 1 2", "needs 1 match field"),
    ("table_add ipv4_lpm fwd 10.0.0.0/40 => 1 2", "prefix length"),
    ("table_add ipv4_lpm fwd 10.0.0.0/8 => 512 2", "does not fit in 9 bits"),
    ("table_add ipv4_lpm2 fwd 1&&&1 => 1 2", "priority"),
    ("table_add", "usage"),
    ("frobnicate 1 2", "unknown command 'frobnicate'"),
    ("table_delete ipv4_lpm 42", "invalid entry handle 42"),
    ("table_add ipv4_lpm fwd 'unterminated", "cannot parse"),
    ("mc_node_associate 1 0", "does not exist"),
    ("mirroring_delete 3", "SESSION_NOT_FOUND"),
    ("register_read nope 1", "invalid register name"),
    ("meter_set_rates nope 0 1:1", "invalid meter name"),
    ("set_queue_rate fast", "invalid number"),
    ("set_queue_depth -3", "non-negative"),
    ("act_prof_create_group ipv4_lpm", "not indirect"),
])  # fmt: skip
def test_errors_are_clear_user_errors(sw, line, message):
    with pytest.raises(CliError, match=message) as info:
        sw.cli(line)
    assert isinstance(info.value, UserError)


def test_suffix_resolution():
    from emulator.target.runtime_cli_state import resolve

    names = {"A.t": 1, "B.t": 2, "B.u": 3}
    assert resolve(names, "u", "table") == 3 and resolve(names, "A.t", "table") == 1
    with pytest.raises(CliError, match="ambiguous table name 't'"):
        resolve(names, "t", "table")
    with pytest.raises(CliError, match="invalid table name"):
        resolve(names, ".t", "table")


def test_run_file_reports_line(sw, tmp_path):
    f = tmp_path / "cmds.txt"
    f.write_text("table_add ipv4_lpm fwd 10.0.0.0/8 => 1 2\n\ntable_add ipv4_lpm bad 1/8 =>\n")
    from emulator.target.runtime_cli import RuntimeCli

    with pytest.raises(CliError, match=r"cmds\.txt:3: invalid action"):
        RuntimeCli(sw).run_file(f)
    assert len(sw.tables["MyIngress.ipv4_lpm"].entries) == 1


TOKENS = ["=>", "ipv4_lpm", "ipv4_lpm2", "fwd", "drop", "0", "1", "-1", "0x1ff", "10.0.0.1/8",
          "1&&&0", "2->1", "aa:bb", "::1", "x", "", "65536", "reg", "1:2", "true", "|"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([*sorted(n for n in dir(RuntimeCli) if n.startswith("cmd_")), "bogus"]),
       st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=6))  # fmt: skip
def test_random_command_lines_only_raise_cli_errors(name, args):
    line = " ".join([name.removeprefix("cmd_"), *args])
    with contextlib.suppress(CliError):
        assert isinstance(_SW.cli(line), str)


def test_reset_default_mc_dump_mirroring_get_and_cli_file(sw, tmp_path):
    sw.cli("table_set_default ipv4_lpm fwd 7 1")
    sw.cli("table_reset_default ipv4_lpm")
    assert sw.tables["MyIngress.ipv4_lpm"].default.action.name == "MyIngress.drop"
    f = tmp_path / "c.txt"
    f.write_text(
        "mc_mgrp_create 3\nmc_node_create 9 2 1\nmc_node_associate 3 0\nmirroring_add 4 6\n"
    )
    assert sw.cli_file(str(f))[0] == "Creating multicast group 3"
    assert "  -> (L1h=0, rid=9) -> (ports=[1, 2], lags=[])" in sw.cli("mc_dump")
    assert sw.cli("mirroring_get 4") == "MirroringSessionConfig(mgid=None, port=6)"


def test_mc_node_update_and_destroy(sw):
    sw.cli("mc_mgrp_create 3")
    sw.cli("mc_node_create 9 2 1")
    sw.cli("mc_node_associate 3 0")
    assert sw.cli("mc_node_update 0 4 5") == "Updating node 0 with port map 110000 and lag map "
    assert "  -> (L1h=0, rid=9) -> (ports=[4, 5], lags=[])" in sw.cli("mc_dump")
    assert sw.cli("mc_node_destroy 0") == "Destroying node 0"
    assert "L1h=0" not in sw.cli("mc_dump")
    with pytest.raises(CliError, match="multicast node 0 does not exist"):
        sw.cli("mc_node_update 0 1")


def test_counter_write_then_read():
    from .test_externs import program

    s = Switch(program([]), tm=FifoTM(lambda: 0))
    assert s.cli("counter_write MyIngress.ctr 2 5 700") == "MyIngress.ctr[2] has been updated"
    assert s.cli("counter_read MyIngress.ctr 2") == "MyIngress.ctr[2]= (700 bytes, 5 packets)"
    with pytest.raises(CliError, match="out of range"):
        s.cli("counter_write MyIngress.ctr 9 1 1")


RESET_COMMANDS = [
    "table_add I.t I.set 0x0800 => 2", "table_set_default I.t I.set 3",
    "register_write I.r 0 9", "counter_write I.c 0 4 400", "mc_mgrp_create 5",
    "mc_node_create 0 2 3", "mc_node_create 0 4", "mc_node_associate 5 1",
    "mirroring_add 9 6", "reset_state", "mc_mgrp_create 6", "mc_node_create 0 5",
    "mc_node_associate 6 0", "table_add I.extra I.mc 0xdd => 6",
    "table_add I.extra I.cl 0xcc =>", "table_add I.t I.set 0x0801 => 4",
    "table_modify I.t I.set 0 7",
]  # fmt: skip


def reset_inputs() -> list[tuple[int, bytes]]:
    """Ethernet frames (type, last byte of dst) for tests/target/programs/reset_state.p4."""
    cases = [(0x0800, 0xFF), (0x0801, 0xFF), (0x0805, 0xEE), (0x0805, 0xDD), (0x0805, 0xCC)]
    return [
        (0, b"\xff" * 5 + bytes([d]) + bytes(6) + t.to_bytes(2, "big") + bytes(50))
        for t, d in cases
    ]


def test_reset_state_clears_what_simple_switch_clears():
    """As measured on simple_switch (tests/target/test_bmv2_differential.py runs both)."""
    from emulator.p4c import compile_file

    s = Switch(compile_file(Path(__file__).parent / "programs" / "reset_state.p4"))
    for line in RESET_COMMANDS[: RESET_COMMANDS.index("reset_state") + 1]:
        s.cli(line)
    assert s.cli("table_num_entries I.t") == "0"
    assert s.cli("table_num_entries I.fixed") == "0"  # const entries too
    assert s.tables["I.t"].default.action.name == "I.dflt"  # the JSON's default again
    assert s.cli("register_read I.r 0") == "I.r[0]= 0"
    assert s.cli("counter_read I.c 0") == "I.c[0]= (0 bytes, 0 packets)"
    assert "mgrp" not in s.cli("mc_dump")
    assert s.cli("mirroring_get 9") == "MirroringSessionConfig(mgid=None, port=6)"
    for line in RESET_COMMANDS[RESET_COMMANDS.index("reset_state") + 1 :]:
        s.cli(line)  # node and entry handles are 0 again
    out = [(p, f[:14].hex()) for port, frame in reset_inputs() for p, f in s.process(port, frame)]
    assert out == [
        (1, "ffffffffffff0000000000000800"),  # the default, dflt(); register from 0
        (7, "ffffffffffff0000000000010801"),  # entry 0, modified
        (1, "ffffffffffee0000000000020805"),  # the const entry is gone
        (5, "ffffffffffdd0000000000030805"),  # group 6, node 0
        (6, "ffffffffffcc0000000000000805"),  # the clone: mirroring session 9 kept
        (7, "ffffffffffcc0000000000040805"),
    ]
    with pytest.raises(CliError, match="usage: reset_state"):
        s.cli("reset_state now")


def test_entry_handles_carry_a_version_as_in_bmv2():
    """A deleted entry's index is reused with its version in bits 24 and up: the old handle
    is then expired; ``table_clear`` and ``reset_state`` start again from 0."""
    from emulator.p4c import compile_file

    s = Switch(compile_file(Path(__file__).parent / "programs" / "reset_state.p4"))
    added = [s.cli(f"table_add I.t I.set {k} => {p}") for k, p in ((1, 2), (3, 4))]
    assert [a.rsplit(" ", 1)[-1] for a in added] == ["0", "1"]
    s.cli("table_delete I.t 0")
    assert s.cli("table_add I.t I.set 5 => 6").endswith("handle 16777216")
    with pytest.raises(CliError, match="expired entry handle 0"):
        s.cli("table_modify I.t I.set 0 7")
    s.cli("table_modify I.t I.set 16777216 7")
    s.cli("table_delete I.t 16777216")
    assert s.cli("table_add I.t I.set 8 => 9").endswith("handle 33554432")
    dump = s.cli("table_dump I.t")
    assert dump.index("Dumping entry 0x2000000") < dump.index("Dumping entry 0x1")
    assert "* eth.type            : EXACT     0008\nAction entry: I.set - 09" in dump
    s.cli("table_clear I.t")
    assert s.cli("table_add I.t I.set 1 => 2").endswith("handle 0")


CLI_PROGRAM = Path(__file__).parent / "programs" / "cli_semantics.p4"
#: commands simple_switch_CLI accepts on cli_semantics.p4, and frames (k, m) they affect
CLI_COMMANDS = [
    "table_clear I.tconst",  # const entries go too
    "act_prof_create_member action_profile_0 I.set 0x22",  # p4c's name for the profile
    "table_indirect_add I.tp 0x21 => 0",
    "table_add I.tm I.set 0:1:2:3:4:5 => 0x33",  # a MAC with one-digit bytes
    "table_add I.tsz I.set 0x40 => 0x44",
    "table_add I.tsz I.set 0x41 => 0x45",  # size = 2: full now
]
#: (command, what the refusal says) after CLI_COMMANDS
CLI_REFUSED = [
    ("table_set_default I.tc I.s7 0x66", "DEFAULT_ENTRY_IS_CONST"),
    ("table_set_default I.tp I.set 0x44", "use table_indirect_set_default"),
    ("act_prof_delete_member action_profile_0 0", "MBR_STILL_USED"),
    ("table_add I.tsz I.set 0x42 => 0x46", "TABLE_FULL"),
]


def cli_inputs() -> list[tuple[int, bytes]]:
    """Frames of cli_semantics.p4's h_t: (k, o, m)."""
    cases = [(0x01, 0), (0x11, 0), (0x21, 0), (0x31, 0x000102030405), (0x41, 0), (0x42, 0)]
    return [(0, bytes([k, 0]) + m.to_bytes(6, "big") + bytes(6)) for k, m in cases]


def test_cli_semantics_as_simple_switch():
    from emulator.p4c import compile_file

    s = Switch(compile_file(CLI_PROGRAM))
    for line in CLI_COMMANDS:
        s.cli(line)
    for line, why in CLI_REFUSED:
        with pytest.raises(CliError, match=why):
            s.cli(line)
    outs = [f[1] for port, frame in cli_inputs() for _, f in s.process(port, frame)]
    assert outs == [0x00, 0x5A, 0x22, 0x33, 0x45, 0x00]  # no entry, const default, member,
    # MAC key, the full table's second entry, the entry it refused
    s.cli("table_indirect_delete I.tp 0")
    s.cli("act_prof_delete_member action_profile_0 0")  # unused now
