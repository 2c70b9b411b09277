/* language_forms.p4 -- P4-16 forms beyond the basics, as p4c-bm2-ss 1.2.4.8 takes them.
 * static_assert initialising a constant and as a statement; constants of struct and tuple
 * type (named, positional, with ...); struct and header initializers naming fields in any
 * order or ending in ... (the rest 0, the header valid); (h_t){#}, an invalid header; an
 * int constant shifted in full precision before a cast narrows it; a serializable enum
 * converted to its bit<8> implicitly (assigned, added, compared).
 * Tests (by eth.type): 1 constants, 2 initializers, 3 the invalid header, 4 the enum.
 * Packet: eth_t, a_t {x, y, z}, b_t {p, q}, payload.
 */
#include <core.p4>
#include <v1model.p4>

const bit<8> W = 8;
const bool WIDE_ENOUGH = static_assert(W == 8, "W is 8");
const int BIG = 1 << 64;

enum bit<8> Kind {
    LOW  = 3,
    HIGH = 0x40
}

struct pair_t {
    bit<8>  a;
    bit<16> b;
    bit<8>  c;
}

const pair_t P1 = { c = 0x99, a = 5, b = 0x1234 };
const pair_t P2 = { 7, 0x0102, 9 };
const pair_t P3 = { a = 0x11, ... };
const tuple<bit<8>, bit<16>> T1 = { 0x21, 0x4321 };

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header a_t {
    bit<8>  x;
    bit<16> y;
    bit<8>  z;
}

header b_t {
    bit<8>  p;
    bit<16> q;
}

struct headers_t {
    eth_t eth;
    a_t   a;
    b_t   b;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.a);
        pkt.extract(h.b);
        transition accept;
    }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        static_assert(W == 8);
        sm.egress_spec = 1;
        if (h.eth.type == 1) {
            h.a.x = P1.a + P2.a;
            h.a.y = P1.b + (bit<16>)(BIG >> 60) + P3.b;
            h.a.z = P2.c ^ P3.a;
            h.b.p = T1[0];
            h.b.q = T1[1];
        } else if (h.eth.type == 2) {
            pair_t s = { b = h.a.y, ... };
            h.a.x = s.a;
            h.a.z = s.c + 1;
            h.a = { z = 8w0x0C, y = s.b + 1, x = 8w0x0A };
            h.b = { q = 16w0xBEEF, ... };
        } else if (h.eth.type == 3) {
            h.a = (a_t){#};
        } else if (h.eth.type == 4) {
            h.a.x = Kind.HIGH;
            h.a.z = Kind.LOW + h.a.z;
            if (h.b.p == Kind.LOW) {
                h.b.q = 0x0303;
            } else if (Kind.HIGH < h.b.p) {
                h.b.q = 0x4141;
            }
        }
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t h, inout meta_t m) { apply { } }

control D(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.a);
        pkt.emit(h.b);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
