/* wide_fields.p4 -- arithmetic on fields wider than a machine word.
 * Tests: bit<48> increment with carry across bytes, bit<64> wrap-around + and *, bit<128>
 * shifts, slices of a 128-bit field, ++ producing a 64-bit value, and comparisons of wide
 * values. Packet: Ethernet (0x88B5) + wide_t (inputs) + res_t (computed).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header wide_t {
    bit<48>  mac;
    bit<64>  a;
    bit<64>  b;
    bit<128> big;
}

header res_t {
    bit<48>  mac_inc;
    bit<64>  sum;
    bit<64>  prod;
    bit<128> shl;
    bit<128> shr;
    bit<64>  folded;   // big[127:64] ^ big[63:0]
    bit<64>  cat;      // mac ++ a[15:0]
    bit<8>   cmp;      // bit 0: a > b, bit 1: big > (bit<128>)a
}

struct headers_t {
    ethernet_t ethernet;
    wide_t     wide;
    res_t      res;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.wide);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.res.setValid();
        hdr.res.mac_inc = hdr.wide.mac + 1;
        hdr.res.sum = hdr.wide.a + hdr.wide.b;
        hdr.res.prod = hdr.wide.a * hdr.wide.b;
        hdr.res.shl = hdr.wide.big << 65;
        hdr.res.shr = hdr.wide.big >> 3;
        hdr.res.folded = hdr.wide.big[127:64] ^ hdr.wide.big[63:0];
        hdr.res.cat = hdr.wide.mac ++ hdr.wide.a[15:0];
        bit<8> c = 0;
        if (hdr.wide.a > hdr.wide.b) { c = c | 8w1; }
        if (hdr.wide.big > (bit<128>)hdr.wide.a) { c = c | 8w2; }
        hdr.res.cmp = c;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.wide);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
