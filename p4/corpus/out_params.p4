/* out_params.p4 -- out parameters a callee leaves unwritten.
 * P4 starts an out parameter uninitialised, a header invalid, and copies it back at the
 * end; p4c gives the callee a fresh copy (a bit field reads 0 until written). Tests: a
 * sub-parser's out header on a path that extracts nothing (invalid afterwards, though the
 * caller had extracted it); a sub-control's out bit<8> left alone on one path (0); an
 * action's out header it never names (invalid); a function's out struct with one field
 * written (the other 0). h.k selects the paths: 1 writes everything, 2 nothing.
 * Packet: eth_t, k_t {k}, b_t {w}, c_t {v}; out: o_t {valid, z, p, q}.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header k_t {
    bit<8> k;
}

header b_t {
    bit<8> w;
}

header c_t {
    bit<8> v;
}

header o_t {
    bit<8> valid;
    bit<8> z;
    bit<8> p;
    bit<8> q;
}

struct pair_t {
    bit<8> p;
    bit<8> q;
}

struct headers_t {
    eth_t eth;
    k_t h;
    b_t b;
    c_t c;
    o_t o;
}

struct meta_t {
    pair_t pr;
}

parser SubP(packet_in pkt, out b_t x, in bit<8> sel) {
    state start {
        transition select(sel) {
            1: take;
            default: accept;
        }
    }
    state take {
        pkt.extract(x);
        transition accept;
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    SubP() sub;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        pkt.extract(hdr.b);
        sub.apply(pkt, hdr.b, hdr.h.k);
        pkt.extract(hdr.c);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control SetZ(in bit<8> k, out bit<8> z) {
    apply {
        if (k == 1) {
            z = 0x22;
        }
    }
}

void half(in bit<8> k, out pair_t s) {
    if (k == 1) {
        s.q = 0x44;
    }
    s.p = 0x33;
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    SetZ() setz;
    action forget(out c_t x) { }
    apply {
        std.egress_spec = 1;
        hdr.o.setValid();
        hdr.o.z = 0x77;
        setz.apply(hdr.h.k, hdr.o.z);
        if (hdr.h.k == 2) {
            forget(hdr.c);
        }
        meta.pr.p = 0x55;
        meta.pr.q = 0x66;
        half(hdr.h.k, meta.pr);
        hdr.o.p = meta.pr.p;
        hdr.o.q = meta.pr.q;
        hdr.o.valid = (hdr.b.isValid() ? 8w1 : 8w0) | (hdr.c.isValid() ? 8w2 : 8w0);
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.h);
        pkt.emit(hdr.b);
        pkt.emit(hdr.c);
        pkt.emit(hdr.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
