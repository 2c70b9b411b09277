/* invalid_keys.p4 -- table keys on fields of invalid headers, and what push_front and
 * pop_front leave in the elements they invalidate. BMv2 matches a key field of an invalid
 * header as 0 (its match-key builder), though other reads see the field's old value; a
 * stack element's field is copied into a temporary by p4c before the table, so there the
 * old value counts. pop_front/push_front rotate the elements: an element they invalidate
 * holds the value that came round (P4 leaves it unspecified).
 * Tests (by h.k): 1: g made invalid, then t keyed on g.x (matched as 0); 2: pop_front(1)
 * of [s0, s1], then ts keyed on s[1].v (the old s[0]); 3: push_front(1), ts keyed on s[0].v
 * (the old s[1]); else both tables see the packet's values.
 * Packet: eth_t, h_t {k, a, b}, g_t {x}, e_t[2] {v}; out: what stays valid.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header h_t {
    bit<8> k;
    bit<8> a;
    bit<8> b;
}

header g_t {
    bit<8> x;
}

header e_t {
    bit<8> v;
}

struct headers_t {
    eth_t eth;
    h_t h;
    g_t g;
    e_t[2] s;
}

struct meta_t {
    bit<8> unused;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.g);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_a(bit<8> v) { hdr.h.a = v; }
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t {
        key = { hdr.g.x: exact; }
        actions = { set_a; NoAction; }
        default_action = NoAction();
    }
    table ts {
        key = { hdr.s[1].v: exact; hdr.s[0].v: exact; }
        actions = { set_b; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (hdr.h.k == 1) {
            hdr.g.setInvalid();
        } else if (hdr.h.k == 2) {
            hdr.s.pop_front(1);
        } else if (hdr.h.k == 3) {
            hdr.s.push_front(1);
        }
        t.apply();
        ts.apply();
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
