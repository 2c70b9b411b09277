/* constant_shifts.p4 -- right shifts of untyped integer constants. P4's `int` has
 * infinite precision, so p4c folds `0x1234 >> 4` to 0x123 before converting it to the
 * destination's width; converting first (8w0x34 >> 4) gives another value.
 * Tests: an untyped constant shifted right into a bit<16> and a bit<8>, a negative one
 * cast after the shift, a left shift then a right shift of a constant, typed constants
 * shifted (by their own width), one by a run-time amount, left shifts for comparison.
 * (An untyped constant shifted by a run-time amount is refused, as p4c refuses it.)
 * Packet: cs_t {s, w1(16), w2(16), b1, b2, w3(16), w4(16), b3, w5(16)}.
 */
#include <core.p4>
#include <v1model.p4>

header cs_t {
    bit<8> s;
    bit<16> w1;
    bit<16> w2;
    bit<8> b1;
    bit<8> b2;
    bit<16> w3;
    bit<16> w4;
    bit<8> b3;
    bit<16> w5;
}

struct headers_t {
    cs_t cs;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.cs);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.cs.w1 = 1048576 >> 18;
        hdr.cs.w2 = (bit<16>)(-5 >> 1);
        hdr.cs.b1 = 0x1234 >> 4;
        hdr.cs.b2 = (bit<8>)(16w0x1234 >> 4);
        hdr.cs.w3 = (bit<16>)(1 << 20 >> 18);
        hdr.cs.w4 = 16w0x1234 >> hdr.cs.s;
        hdr.cs.b3 = 0x1f << 4;
        hdr.cs.w5 = 0x1234 << 8 >> 8;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.cs); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
