"""simple_switch_CLI's dumps of action profiles, selector groups and parser value sets on
the built-in CLI (the same commands against simple_switch: test_bmv2_differential.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.p4c import compile_file
from emulator.target.errors import CliError
from emulator.target.switch import Switch

DUMP_PROGRAM = Path(__file__).parent / "programs" / "dump_profiles.p4"
#: a selector profile (action_profile_0) with members and groups out of handle order, a
#: plain profile (action_profile_1) with an indirect default, values in the 9-bit set
DUMP_COMMANDS = [
    "act_prof_create_member action_profile_0 I.port 2",
    "act_prof_create_member action_profile_0 I.port 3",
    "act_prof_create_member action_profile_0 I.port 4",
    "act_prof_create_group action_profile_0",
    "act_prof_create_group action_profile_0",
    "act_prof_add_member_to_group action_profile_0 2 0",
    "act_prof_add_member_to_group action_profile_0 0 0",
    "act_prof_add_member_to_group action_profile_0 1 1",
    "table_indirect_add_with_group I.sel 0x05 => 0",
    "table_indirect_add I.sel 0x06 => 1",
    "act_prof_create_member action_profile_1 I.set 0x77",
    "act_prof_create_member action_profile_1 NoAction",
    "table_indirect_add I.prof 0x05 => 0",
    "table_indirect_set_default I.prof 1",
    "pvs_add P.pv9 0x1ff",
    "pvs_add P.pv9 5",
    "pvs_add P.pv9 0x3",
    "pvs_remove P.pv9 0x3",
    "pvs_add P.pv9 5",  # twice: no error, as BMv2
]
DUMP_READS = [
    "table_dump I.sel",
    "table_dump I.prof",
    "act_prof_dump action_profile_0",
    "act_prof_dump action_profile_1",
    "act_prof_dump_group action_profile_0 1",
    "table_dump_member I.sel 2",
    "table_dump_group I.sel 0",
    "table_dump_entry I.prof 0",
    "show_pvs",
    "pvs_get P.pv9",
]


def dump_inputs() -> list[tuple[int, bytes]]:
    """Frames whose 9-bit value is in the set (0x1ff), is not (6), and one per entry."""
    heads = ["ff80000005", "0280000006", "0300000005", "0280000007"]
    return [(0, bytes.fromhex(h + "00aa") + bytes(10)) for h in heads]


@pytest.fixture(scope="module")
def doc():
    return compile_file(DUMP_PROGRAM)


@pytest.fixture
def sw(doc):
    s = Switch(doc)
    for line in DUMP_COMMANDS:
        s.cli(line)
    return s


def test_table_dump_of_a_selector_table_shows_its_profile(sw):
    text = sw.cli("table_dump I.sel")
    assert "Index: group(0)\n**********\nDumping entry 0x1" in text
    assert text.endswith(
        "==========\nMEMBERS\n**********\nDumping member 0\nAction entry: I.port - 02\n"
        "**********\nDumping member 1\nAction entry: I.port - 03\n"
        "**********\nDumping member 2\nAction entry: I.port - 04\n"
        "==========\nGROUPS\n**********\nDumping group 0\nMembers: [0, 2]\n"
        "**********\nDumping group 1\nMembers: [1]\n"
        "==========\nDumping default entry\nEMPTY\n=========="
    )


def test_plain_profile_has_no_groups_and_an_indirect_default(sw):
    text = sw.cli("table_dump I.prof")
    assert "GROUPS" not in text
    assert text.endswith("Dumping default entry\nIndex: member(1)\n==========")
    assert sw.cli("act_prof_dump action_profile_1").splitlines()[-1] == "Action entry: NoAction - "


def test_legacy_per_table_dumps_name_the_table(sw):
    assert sw.cli("table_dump_group I.sel 1") == sw.cli("act_prof_dump_group action_profile_0 1")
    assert sw.cli("table_dump_member prof 0") == "Dumping member 0\nAction entry: I.set - 77"
    with pytest.raises(CliError, match="invalid group handle 7"):
        sw.cli("table_dump_group I.sel 7")


def test_value_sets_listed_got_and_cleared(sw):
    assert sw.cli("show_pvs").splitlines() == [
        "P.pv16                         [compressed bitwidth:16]",
        "P.pv9                          [compressed bitwidth:9]",
    ]
    assert sw.cli("pvs_get P.pv9").splitlines() == ["0005", "01ff"]
    assert sw.cli("pvs_get P.pv16") == ""
    sw.cli("pvs_clear P.pv9")
    assert sw.cli("pvs_get P.pv9") == ""


@pytest.mark.parametrize(
    "bad,why",
    [
        ("pvs_add pv9 1", "give its full name 'P.pv9'"),  # simple_switch refuses a suffix
        ("pvs_add P.pv9 0x200", "does not fit"),  # 10 bits into 9
        ("pvs_get P.nope", "invalid parser value set name 'P.nope'"),
        ("pvs_clear", "usage: pvs_clear"),
        ("show_pvs x", "usage: show_pvs"),
        ("act_prof_dump", "usage: act_prof_dump"),
        ("table_dump_member I.nope 0", "invalid table name"),
        ("table_indirect_add_with_group I.sel 0x09 => 2", "invalid group handle 2"),
        ("mc_node_update 0", "usage: mc_node_update"),  # simple_switch_CLI wants ports
    ],
)
def test_dump_and_value_set_mistakes_are_refused(sw, bad, why):
    with pytest.raises(CliError, match=why):
        sw.cli(bad)


def test_an_entry_cannot_point_at_an_empty_group(sw):
    """simple_switch refuses it (EMPTY_GRP) but takes an empty group as default entry."""
    sw.cli("act_prof_create_group action_profile_0")
    with pytest.raises(CliError, match="EMPTY_GRP"):
        sw.cli("table_indirect_add_with_group I.sel 0x09 => 2")
    sw.cli("table_indirect_set_default_with_group I.sel 2")


def test_legacy_dumps_refuse_a_direct_table():
    s = Switch(compile_file(Path(__file__).parent / "programs" / "cli_semantics.p4"))
    with pytest.raises(CliError, match="non-indirect table"):
        s.cli("table_dump_member I.tm 0")


def test_value_sets_steer_the_parser(sw):
    pads = [sw.process(port, frame)[0][1][1] & 0x7F for port, frame in dump_inputs()]
    assert pads == [0x55, 0x55, 0, 0x55]  # 0x1ff and 5 are in the set, 6 is not
    sw.cli("pvs_remove P.pv9 0x1ff")
    assert sw.process(*dump_inputs()[0])[0][1][1] & 0x7F == 0
    sw.cli("pvs_add P.pv9 6")  # the third frame's 9 bits
    assert sw.process(*dump_inputs()[2])[0][1][1] & 0x7F == 0x55


def test_a_miss_with_no_default_entry_goes_on(sw):
    """k=7 misses the selector table, which has no default entry (an indirect table has
    none until one is set): the pipeline goes on to base_default_next, as simple_switch
    (prof and the pad write still run), not to the end of the control."""
    [(port, frame)] = sw.process(*dump_inputs()[3])
    assert (port, frame[1] & 0x7F) == (1, 0x55)
    assert sw.tables["I.sel"].default is None
