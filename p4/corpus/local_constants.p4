/* local_constants.p4 -- `/` and `%` of local variables whose values are known, as
 * p4c-bm2-ss's constant propagation sees them (BMv2 has no run-time division: anything
 * still unknown is refused). Tests: a local initialised to a constant, one updated twice,
 * one computed from another, one reassigned after a run-time initialiser, a local
 * divisor that is a power of 2 (a mask at run time), an `if` that leaves the local
 * alone, and the value at the assignment when the source changes later.
 * Packet: lc_t {k, r1, r2, r3, r4, r5, r6, r7} (bytes).
 */
#include <core.p4>
#include <v1model.p4>

header lc_t {
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<8> r5;
    bit<8> r6;
    bit<8> r7;
}

struct headers_t {
    lc_t lc;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.lc);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        bit<8> ten = 10;
        hdr.lc.r1 = ten % 7;
        bit<8> x = 200;
        x = x + 50;
        x = x + 7;              // 257 wraps to 1
        hdr.lc.r2 = (x + 100) / 3;
        bit<8> y = ten * 4;
        hdr.lc.r3 = y % 9;
        bit<8> z = hdr.lc.k;
        z = 99;
        hdr.lc.r4 = z / 10;
        bit<8> eight = 8;
        hdr.lc.r5 = hdr.lc.k % eight;
        if (hdr.lc.k == 3) {
            hdr.lc.r6 = 1;
        }
        hdr.lc.r7 = ten / 3;
        bit<8> src = 5;
        bit<8> copy = src;
        src = 77;
        hdr.lc.r6 = hdr.lc.r6 + copy % 3 + src % 10;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.lc);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
