/* concat_signed.p4 -- concatenation of signed values. `a ++ b` has the width of both
 * and the signedness of `a`: with a signed left operand the result is a negative number
 * when a's top bit is set, so a right shift of it shifts in ones (arithmetic).
 * Tests: (s ++ t) >> 4 shifted before and after a cast to bit<16>, the same through an
 * int<16> local, a three-way concatenation, an unsigned left operand (logical shift),
 * a signed concatenation compared with a negative constant; a negative constant on the
 * right: cut to its width at run time (r7), folded by p4c-bm2-ss as (a << 8) + b, its
 * sign bits filling the result (r8: 0xd780, not 0xd880).
 * Packet: cs_t {s(int8), t(int8), u(8), r1(16), r2(16), r3(24), r4(16), r5(16), r6(8),
 * r7(16), r8(16)}.
 */
#include <core.p4>
#include <v1model.p4>

header cs_t {
    int<8> s;
    int<8> t;
    bit<8> u;
    bit<16> r1;
    bit<16> r2;
    bit<24> r3;
    bit<16> r4;
    bit<16> r5;
    bit<8> r6;
    bit<16> r7;
    bit<16> r8;
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
        hdr.cs.r1 = (bit<16>)((hdr.cs.s ++ hdr.cs.t) >> 4);
        int<16> x = hdr.cs.s ++ hdr.cs.t;
        hdr.cs.r2 = (bit<16>)(x >> 4);
        hdr.cs.r3 = (bit<24>)((hdr.cs.s ++ hdr.cs.t ++ hdr.cs.t) >> 4);
        hdr.cs.r4 = (bit<16>)(hdr.cs.s ++ hdr.cs.t) >> 4;
        hdr.cs.r5 = (hdr.cs.u ++ (bit<8>)hdr.cs.t) >> 4;
        hdr.cs.r6 = (hdr.cs.s ++ hdr.cs.t) < -16s100 ? 8w1 : 8w0;
        hdr.cs.r7 = (bit<16>)(hdr.cs.s ++ -8s2);
        hdr.cs.r8 = (bit<16>)(-8s40 ++ -8s128);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.cs);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
