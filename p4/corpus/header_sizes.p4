/* header_sizes.p4 -- a header's size as a compile-time constant: minSizeInBits(),
 * minSizeInBytes(), maxSizeInBits() and maxSizeInBytes(), called on a header and on a
 * header type. The minimum counts a varbit field as empty, the maximum at its largest;
 * byte sizes round up.
 * Tests: a fixed header (bit, bool and serializable-enum fields, 24 bits), a header with a
 * varbit<32> field, the sizes of a header type by its name, a size in an expression.
 * Packet: sz_t {k, then eight result bytes, then a 16-bit result}.
 */
#include <core.p4>
#include <v1model.p4>

enum bit<3> Kind_t { A = 1, B = 2 }

header fix_t {
    bit<16> a;
    bool flag;
    Kind_t kind;
    bit<4> b;
}

header opt_t {
    bit<8> len;
    varbit<32> data;
}

header sz_t {
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<8> r5;
    bit<8> r6;
    bit<8> r7;
    bit<8> r8;
    bit<16> r9;
}

struct headers_t {
    sz_t sz;
    fix_t fix;
    opt_t opt;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.sz);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.sz.r1 = (bit<8>)hdr.fix.minSizeInBits();
        hdr.sz.r2 = (bit<8>)hdr.fix.minSizeInBytes();
        hdr.sz.r3 = (bit<8>)hdr.fix.maxSizeInBits();
        hdr.sz.r4 = (bit<8>)hdr.opt.minSizeInBits();
        hdr.sz.r5 = (bit<8>)hdr.opt.maxSizeInBits();
        hdr.sz.r6 = (bit<8>)hdr.opt.maxSizeInBytes();
        hdr.sz.r7 = (bit<8>)opt_t.minSizeInBytes();
        hdr.sz.r8 = (bit<8>)fix_t.maxSizeInBytes();
        hdr.sz.r9 = hdr.sz.k ++ (bit<8>)(opt_t.maxSizeInBits() + 1);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.sz); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
