"""Two lpm entries that agree on their prefix bits are one entry, as BMv2 keys its trie on
them: with a 3-bit key a prefix counts from the top of its byte, so 6/2 and 2/2 are the
same (found by benchmarks/fuzz_statements.py: simple_switch refuses to load such const
entries, "Duplicate entries in table initializer", where the built-in target took them)."""

from __future__ import annotations

import pytest

from emulator.p4c import compile_source
from emulator.target.errors import CliError, ProgramError
from emulator.target.switch import Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header k_t { bit<3> k; bit<5> r; }
struct H { eth_t eth; k_t h; }
struct M { }
parser P(packet_in pkt, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.h); transition accept; }
}
control VC(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    action set(bit<5> v) { h.h.r = v; sm.egress_spec = 1; }
    table t {
        key = { h.h.k: lpm; }
        actions = { set; }
        ENTRIES
        default_action = set(0);
    }
    apply { t.apply(); }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pkt, in H h) { apply { pkt.emit(h.eth); pkt.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _program(entries: str) -> dict:
    return compile_source(PROGRAM.replace("ENTRIES", entries), "lpm3.p4")


def test_const_entries_equal_within_their_prefix_are_refused() -> None:
    doc = _program("const entries = { 3w6 &&& 3w6 : set(1); 3w2 &&& 3w6 : set(2); }")
    with pytest.raises(ProgramError, match=r"I\.t: duplicate entries in table initializer"):
        Switch(doc)


def test_distinct_prefixes_load() -> None:
    Switch(_program("const entries = { 3w6 &&& 3w6 : set(1); 3w2 &&& 3w7 : set(2); }"))


def test_table_add_of_the_same_prefix_bits_is_a_duplicate() -> None:
    sw = Switch(_program(""))
    sw.cli("table_add I.t set 6/2 => 1")
    with pytest.raises(CliError, match="duplicate entry"):
        sw.cli("table_add I.t set 2/2 => 2")
    sw.cli("table_add I.t set 2/3 => 3")  # another prefix length: another entry
