/* expressions.p4 -- unsigned expression semantics.
 * Tests: wrap-around + - *, saturating |+| |-|, bitwise & | ^ ~, bit slices (read and
 * write), concatenation ++, shifts by constants and by a run-time amount, casts (widening,
 * narrowing, bool <-> bit<1>), all six comparisons, && || !, and the ternary operator ?:.
 * Packet: Ethernet (0x88B5) + in_t {a, b, w} + out_t (computed, emitted after in_t).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header in_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}

header out_t {
    bit<8>  sum;
    bit<8>  diff;
    bit<8>  prod;
    bit<8>  sat_add;
    bit<8>  sat_sub;
    bit<8>  bits;
    bit<8>  hi;        // w[15:8]
    bit<16> patched;   // w with [3:0] := 0xF and [15:12] := a[3:0]
    bit<16> cat;       // a ++ b
    bit<8>  shl;       // a << 3
    bit<16> shr;       // w >> 4
    bit<8>  shv;       // a << b[2:0]
    bit<16> widened;   // (bit<16>)a
    bit<8>  narrowed;  // (bit<8>)(bit<4>)w
    bit<8>  cmp;       // comparison bits
    bit<8>  maxab;     // a > b ? a : b
    bit<7>  pad;
    bit<1>  gt_bit;    // (bit<1>)(a > b)
}

struct headers_t {
    ethernet_t ethernet;
    in_t       inp;
    out_t      outp;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.inp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        bit<8> a = hdr.inp.a;
        bit<8> b = hdr.inp.b;
        bit<16> w = hdr.inp.w;
        hdr.outp.setValid();
        hdr.outp.sum = a + b;
        hdr.outp.diff = a - b;
        hdr.outp.prod = a * b;
        hdr.outp.sat_add = a |+| b;
        hdr.outp.sat_sub = a |-| b;
        hdr.outp.bits = (a & b) ^ (~a | (b & 8w0x0F));
        hdr.outp.hi = w[15:8];
        bit<16> p = w;
        p[3:0] = 4w0xF;
        p[15:12] = a[3:0];
        hdr.outp.patched = p;
        hdr.outp.cat = a ++ b;
        hdr.outp.shl = a << 3;
        hdr.outp.shr = w >> 4;
        hdr.outp.shv = a << b[2:0];
        hdr.outp.widened = (bit<16>)a;
        hdr.outp.narrowed = (bit<8>)(bit<4>)w;
        bool gt = a > b;
        bit<1> gt1 = (bit<1>)gt;
        bool back = (bool)gt1;
        bit<8> c = 0;
        if (a == b) { c = c | 8w0x01; }
        if (a != b) { c = c | 8w0x02; }
        if (a < b)  { c = c | 8w0x04; }
        if (a <= b) { c = c | 8w0x08; }
        if (a > b)  { c = c | 8w0x10; }
        if (a >= b) { c = c | 8w0x20; }
        if (back && w != 16w0) { c = c | 8w0x40; }
        if (a == 8w0 || !back) { c = c | 8w0x80; }
        hdr.outp.cmp = c;
        hdr.outp.maxab = gt ? a : b;
        hdr.outp.pad = 7w0;
        hdr.outp.gt_bit = gt1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.inp);
        pkt.emit(hdr.outp);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
