/* ctor_args.p4 -- constructor arguments of sub-parsers and sub-controls, and arguments
 * p4c evaluates once. A number given for an int<8> constructor parameter is an int<8>
 * (>> shifts arithmetically, |-| saturates as signed); a sub-parser with a constructor
 * parameter, instantiated twice with different arguments; an inout argument indexed at
 * run time (hdr.es[hdr.h.i].v) is written back to the element the index chose at the
 * call, though the action changes the index; a header assigned a cast initializer.
 * Packet: eth_t, h_t {i, a}, e_t[4] {v}; out: the same, then o_t {sh, sat, p}.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header h_t {
    bit<8> i;
    bit<8> a;
}

header e_t {
    bit<8> v;
}

header o_t {
    bit<8> sh;
    bit<8> sat;
    bit<8> p;
}

struct headers_t {
    eth_t eth;
    h_t h;
    e_t[4] es;
    o_t o;
}

struct meta_t {
    bit<8> p;
}

parser Count(packet_in pkt, inout bit<8> acc)(bit<8> inc) {
    state start {
        acc = acc + inc;
        transition accept;
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    Count(1) one;
    Count(16) sixteen;
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        one.apply(pkt, meta.p);
        sixteen.apply(pkt, meta.p);
        pkt.extract(hdr.es.next);
        pkt.extract(hdr.es.next);
        pkt.extract(hdr.es.next);
        pkt.extract(hdr.es.next);
        transition accept;
    }
}

control Signed(inout o_t o)(int<8> s) {
    apply {
        o.sh = (bit<8>)(s >> 1);
        o.sat = (bit<8>)(s |-| 127);
    }
}

control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Signed(-7) minus7;
    action bump(inout bit<8> x) {
        hdr.h.i = 2;
        x = x + 0x80;
    }
    apply {
        std.egress_spec = 1;
        hdr.o = (o_t){sh = 0, sat = 0, p = meta.p};
        minus7.apply(hdr.o);
        if (hdr.h.i < 4) {
            bump(hdr.es[hdr.h.i].v);
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
