/* signed_int.p4 -- int<W> (two's complement) arithmetic.
 * Tests: int<16> header fields, signed + and - with wrap-around, signed saturating |+| and |-|,
 * signed vs unsigned comparison, arithmetic shift right of a negative value, narrowing
 * (int<16> -> int<8>) and sign-extending widening (int<8> -> int<16>) casts, int -> bit casts.
 * Packet: Ethernet (0x88B5) + nums_t (x, y in; the rest computed).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header nums_t {
    int<16> x;
    int<16> y;
    int<16> sum;
    int<16> diff;
    int<16> sat_add;
    int<16> sat_sub;
    int<16> sra;
    int<16> wide;
    bit<8>  narrow;
    bit<8>  flags;
}

struct headers_t {
    ethernet_t ethernet;
    nums_t     nums;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.nums);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        int<16> x = hdr.nums.x;
        int<16> y = hdr.nums.y;
        hdr.nums.sum = x + y;
        hdr.nums.diff = x - y;
        hdr.nums.sat_add = x |+| y;
        hdr.nums.sat_sub = x |-| y;
        hdr.nums.sra = x >> 2;
        int<8> low = (int<8>)x;             // narrowing keeps the low 8 bits
        hdr.nums.wide = (int<16>)low;       // widening sign-extends
        hdr.nums.narrow = (bit<8>)low;
        bit<8> f = 0;
        if (x < y)                  { f = f | 8w0x01; }   // signed
        if (x > 16s0)               { f = f | 8w0x02; }
        if ((bit<16>)x < (bit<16>)y) { f = f | 8w0x04; }   // unsigned
        if (x >= -16s5)             { f = f | 8w0x08; }
        if (x == y)                 { f = f | 8w0x10; }
        hdr.nums.flags = f;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.nums);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
