/* call_time_args.p4 -- when an action's arguments are evaluated.
 * p4c evaluates a directionless argument of a call from a control, and every in argument,
 * at the call (into a temporary), but substitutes a directionless argument where an action
 * calls another action (its ActionsInliner): the body's write to h.f before it reads the
 * parameter shows the difference. Tests (by h.sel): 1: a_dl(h.g + h.f) from the control
 * (0x11); 2: a_in(h.g + h.f) from the control (0x11); 3: the same as 1 from an action
 * (0x12: the expression sees h.f + 1); 4: the same as 2 from an action (0x11).
 * Packet: eth_t, h_t {sel, f, g, r}.
 */
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header h_t { bit<8> sel; bit<8> f; bit<8> g; bit<8> r; }
struct H { eth_t eth; h_t h; }  struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); transition accept; } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action a_dl(bit<8> p) { hdr.h.f = hdr.h.f + 1; hdr.h.r = p; }
    action a_in(in bit<8> p) { hdr.h.f = hdr.h.f + 1; hdr.h.r = p; }
    action outer_dl() { a_dl(hdr.h.g + hdr.h.f); }
    action outer_in() { a_in(hdr.h.g + hdr.h.f); }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.sel == 1) { a_dl(hdr.h.g + hdr.h.f); }
        else if (hdr.h.sel == 2) { a_in(hdr.h.g + hdr.h.f); }
        else if (hdr.h.sel == 3) { outer_dl(); }
        else if (hdr.h.sel == 4) { outer_in(); }
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control VC(inout H hdr, inout M m) { apply { } }  control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
