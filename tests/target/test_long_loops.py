"""Loops BMv2 runs to their end: a parser state looping 5,000 times without consuming
input, a packet resubmitted 40 times (probe round 8: simple_switch ends both; the
built-in target cut them at 4,096 states and 32 passes before)."""

from __future__ import annotations

from emulator.p4c import compile_source
from emulator.target.switch import Switch

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header r_t { bit<16> n; bit<8> k; bit<8> err; }
struct H { eth_t eth; r_t r; }
struct M { bit<16> n; @field_list(0) bit<8> k; }
parser P(packet_in pkt, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(h.eth); pkt.extract(h.r); transition spin; }
    state spin {
        m.n = m.n + 1;
        transition select(m.n == h.r.n) { true: accept; default: spin; }
    }
}
control VC(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        h.r.err = (bit<8>)(sm.parser_error == error.NoError ? 1w0 : 1w1);
        if (m.k < h.r.k) {
            m.k = m.k + 1;
            resubmit_preserving_field_list(0);
        }
        h.r.n = m.n;
        h.r.k = m.k;
    }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pkt, in H h) { apply { pkt.emit(h.eth); pkt.emit(h.r); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _run(n: int, k: int) -> tuple[int, int, int]:
    sw = Switch(compile_source(PROGRAM, "loops.p4"))
    frame = bytes(12) + b"\x88\xb5" + n.to_bytes(2, "big") + bytes([k, 0])
    [(port, out)] = sw.process(0, frame)
    assert port == 1
    return int.from_bytes(out[14:16], "big"), out[16], out[17]


def test_a_parser_loop_of_5000_states_runs_to_its_end() -> None:
    assert _run(5000, 0) == (5000, 0, 0)


def test_a_packet_resubmitted_40_times_comes_out() -> None:
    n, k, err = _run(3, 40)
    assert (k, err) == (40, 0)  # each pass parsed again: 3 states
    assert n == 3
