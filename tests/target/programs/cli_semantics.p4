/* cli_semantics.p4 -- tables for simple_switch_CLI semantics: a const default entry, an
 * indirect table with an inline action_profile (p4c names it action_profile_0), const
 * entries (table_clear removes them), a 48-bit key (MAC values), a range key (the
 * table's match type is range), a table of size 2 (a third entry is TABLE_FULL). */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> o; bit<48> m; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}

control VC(inout headers_t hdr, inout meta_t m) { apply { } }

control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.o = v; }
    action s7(bit<8> v) { hdr.h.o = v; }
    table tconst {
        key = { hdr.h.k: exact; }
        actions = { set; NoAction; }
        const entries = { 1: set(0x11); }
        default_action = NoAction();
    }
    table tc {
        key = { hdr.h.k: exact; }
        actions = { set; s7; }
        const default_action = s7(0x5a);
    }
    table tp {
        key = { hdr.h.k: exact; }
        actions = { set; NoAction; }
        implementation = action_profile(4);
    }
    table tm {
        key = { hdr.h.m: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    table tsz {
        key = { hdr.h.k: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
        size = 2;
    }
    table tr {
        key = { hdr.h.k: range; hdr.h.o: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.k == 0xff) {
            tr.apply();
        } else if (hdr.h.k < 0x10) {
            tconst.apply();
        } else if (hdr.h.k < 0x20) {
            tc.apply();
        } else if (hdr.h.k < 0x30) {
            tp.apply();
        } else {
            tm.apply();
            tsz.apply();
        }
    }
}

control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in headers_t hdr) { apply { pk.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
