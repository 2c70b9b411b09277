/* operand_order.p4 -- operands are evaluated left to right: a value read before a call
 * that writes it through an inout argument keeps the value it had when read.
 * Tests: `v + f(v)` with f writing v; a struct initializer and a tuple whose first element
 * is read before a later element's call writes it.
 * Also: `?:` of an int literal and a bit<3> under a cast to bit<8> is a bit<3> (the literal
 * takes the other arm's type, not the cast's).
 * Packet: Ethernet (0x88B5) + ord_t {a, b, c, d, e, f}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header ord_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
    bit<8> f;
}

struct headers_t {
    ethernet_t ethernet;
    ord_t      ord;
}

struct pair_t {
    bit<8> first;
    bit<8> second;
}

struct meta_t { }

bit<8> bump(inout bit<8> v) {
    v = v + 8w10;
    return 8w1;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ord);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.ord.a = hdr.ord.b + bump(hdr.ord.b);
        pair_t p = { hdr.ord.c, bump(hdr.ord.c) };
        hdr.ord.d = p.first;
        tuple<bit<8>, bit<8>> t = { hdr.ord.e, bump(hdr.ord.e) };
        hdr.ord.e = t[0] + t[1];
        hdr.ord.f = (bit<8>)-((hdr.ord.a == 8w6) ? 2 : 3w1);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ord);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
