"""An ``out`` header parameter the callee never names ends invalid, for a function as for an
action (p4c gives it a fresh, invalid copy and copies it back; checked on simple_switch)."""

from __future__ import annotations

from emulator.p4c import compile_source
from emulator.target.switch import Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header c_t { bit<8> v; }
struct H { eth_t eth; c_t c; }  struct M { }
void forget(out c_t x) { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.c); transition accept; } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; if (hdr.c.v == 1) { forget(hdr.c); } }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control VC(inout H hdr, inout M m) { apply { } }  control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.c); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
ETH = bytes.fromhex("000000000001000000000002") + b"\x88\xb5"


def test_a_function_s_unnamed_out_header_ends_invalid() -> None:
    sw = Switch(compile_source(PROGRAM, "unnamed_out.p4"))
    assert sw.process(0, ETH + b"\x01\xee") == [(1, ETH + b"\xee")]
    assert sw.process(0, ETH + b"\x02\xee") == [(1, ETH + b"\x02\xee")]
