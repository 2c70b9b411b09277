/* default_arguments.p4 -- parameters with default values (`bit<8> x = 7`). A call may
 * leave out the parameters that have one, positionally (the last ones) or by naming the
 * arguments it gives; the default is the value passed.
 * Tests: a directly called action with an inout parameter and two defaulted ones, called
 * with one positional argument, with all three, and with named arguments that skip the
 * middle one; a function with a defaulted second parameter called with one and with two
 * arguments; a table applied in both branches of an if/else (one node, one successor).
 * Packet: da_t {k, r1, r2, r3, r4, r5, r6}.
 */
#include <core.p4>
#include <v1model.p4>

header da_t {
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<8> r5;
    bit<8> r6;
}

struct headers_t {
    da_t da;
}

struct meta_t {
    bit<8> unused;
}

bit<8> add_some(in bit<8> a, in bit<8> b = 8w5) {
    return a + b;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.da);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action put(inout bit<8> dst, bit<8> x = 8w7, bit<8> y = 8w9) {
        dst = dst + x + y;
    }

    action mark(bit<8> v) {
        hdr.da.r6 = v;
    }

    table t {
        key = { hdr.da.k: exact; }
        actions = { mark; NoAction; }
        default_action = mark(0xdd);
    }

    apply {
        std.egress_spec = 1;
        put(hdr.da.r1);
        put(hdr.da.r2, 1, 2);
        put(dst = hdr.da.r3, y = 8w2);
        hdr.da.r4 = add_some(hdr.da.k);
        hdr.da.r5 = add_some(hdr.da.k, 8w100);
        if (hdr.da.k == 1) {
            t.apply();
        } else {
            t.apply();  // again: the same node, the same successor
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.da); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
