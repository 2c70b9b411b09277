/* unnamed_inout_args.p4 -- copy-in/copy-out of inout parameters the action never names.
 * P4 copies an inout argument in at the call and back at the end, so a write to the
 * argument by another path inside the action is undone; p4c keeps the copies where such a
 * write exists (and drops them otherwise). Tests (by h.sel): 1: h1(h.f) where a called
 * action writes h.f, inside an if/else (the copy-in goes before the body's jumps);
 * 2: h2(h.f, h.f) with the second parameter written (copy-outs in parameter order: it
 * wins); 3: h3(h.f, h.f) with the first written (the unnamed second copies back last).
 * Packet: eth_t, h_t {sel, f, g, k}.
 */
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header h_t { bit<8> sel; bit<8> f; bit<8> g; bit<8> k; }
struct H { eth_t eth; h_t h; }  struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.h); transition accept; } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action w() { hdr.h.f = 0x11; }
    action h1(inout bit<8> x) { if (hdr.h.k == 1) { w(); } else { hdr.h.g = 0x33; w(); } hdr.h.g = hdr.h.g + 1; }
    action h2(inout bit<8> x, inout bit<8> y) { y = 0x22; }
    action h3(inout bit<8> y, inout bit<8> x) { y = 0x44; }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.sel == 1) { h1(hdr.h.f); }
        else if (hdr.h.sel == 2) { h2(hdr.h.f, hdr.h.f); }
        else if (hdr.h.sel == 3) { h3(hdr.h.f, hdr.h.f); }
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control VC(inout H hdr, inout M m) { apply { } }  control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
