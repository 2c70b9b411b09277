/* select_defaults.p4 -- select cases that match everything, placed before other cases.
 * BMv2 keeps one default transition per parser state, the last one given, and tries it
 * after every value case; p4c turns a case of all don't-cares or masks of 0 into such a
 * default wherever it stands, and drops the cases after a bare `default` / `_`.
 * Tests (by h.sel): 1: `0 &&& 0` then `default` (the second default wins); 2: `(_, _)`
 * before `(3, 3)` (the value case is tried first); 3: `default` before `1` (the case
 * after it is dropped: always the default).
 * Packet: eth_t, h_t {sel, k, a}; out: o_t {st}.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header h_t {
    bit<8> sel;
    bit<8> k;
    bit<8> a;
}

header o_t {
    bit<8> st;
}

struct headers_t {
    eth_t eth;
    h_t h;
    o_t o;
}

struct meta_t {
    bit<8> st;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition select(hdr.h.sel) {
            1: two_defaults;
            2: default_mid;
            3: default_first;
            default: accept;
        }
    }
    state two_defaults {
        transition select(hdr.h.k) {
            0 &&& 0: s1;
            default: s2;
        }
    }
    state default_mid {
        transition select(hdr.h.k, hdr.h.a) {
            (_, _): s2;
            (3, 3): s3;
        }
    }
    state default_first {
        transition select(hdr.h.k) {
            default: s4;
            1: s1;
        }
    }
    state s1 { meta.st = 1; transition accept; }
    state s2 { meta.st = 2; transition accept; }
    state s3 { meta.st = 3; transition accept; }
    state s4 { meta.st = 4; transition accept; }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.o.setValid();
        hdr.o.st = meta.st;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.o); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
