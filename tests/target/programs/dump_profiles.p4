/* dump_profiles.p4 -- simple_switch_CLI's dumps: an action selector table, an indirect
 * table with a plain action profile, and two parser value sets (9 bits: simple_switch_CLI
 * can add to it; 16 bits: only listed). */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<9> pv; bit<7> pad; bit<16> w; bit<8> k; bit<8> o; }
header x_t { bit<8> x; }
struct headers_t { h_t h; x_t x; }
struct meta_t { bit<8> unused; }

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<9>>(4) pv9;
    value_set<bit<16>>(4) pv16;
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.pv) { pv9: more; default: wide; }
    }
    state wide { transition select(hdr.h.w) { pv16: more; default: accept; } }
    state more { pk.extract(hdr.x); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t m) { apply { } }

control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.o = v; }
    action port(bit<9> p) { sm.egress_spec = p; }
    table sel {
        key = { hdr.h.k: exact; hdr.h.w: selector; }
        actions = { port; NoAction; }
        implementation = action_selector(HashAlgorithm.crc16, 8, 16);
    }
    table prof {
        key = { hdr.h.k: exact; }
        actions = { set; NoAction; }
        implementation = action_profile(4);
    }
    apply {
        sm.egress_spec = 1;
        sel.apply();
        prof.apply();
        if (hdr.x.isValid()) { hdr.h.pad = 0x55; }  // the 9-bit value was in pv9
    }
}

control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr.h); pk.emit(hdr.x); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
