/* Behaviour test (features.stf): value switch, an inlined function, an expression table key,
 * a sub-control, a top-level register, a register read inside an if condition and an if
 * inside a parser state.
 * Packet: Ethernet (0x88B5) + feat_t {op, a, b, out1, out2, out3}.
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header feat_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
    bit<8> out1;
    bit<8> out2;
    bit<8> out3;
}

struct headers_t {
    ethernet_t ethernet;
    feat_t     feat;
}

struct meta_t { }

register<bit<8>>(4) shared;

bit<8> sat_dec(in bit<8> v, in bit<8> by) {
    if (v < by) {
        return 8w0;
    }
    return v - by;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            16w0x88B5: parse_feat;
            default: accept;
        }
    }
    state parse_feat {
        pkt.extract(hdr.feat);
        if (hdr.feat.op == 8w0x42) {
            hdr.feat.out2 = 8w0x42;
        } else {
            hdr.feat.out2 = 8w0;
        }
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control Sub(inout feat_t f, inout standard_metadata_t sm) {
    action set_out3(bit<8> v) { f.out3 = v; }
    table sub_t {
        key = { f.a: exact; }
        actions = { set_out3; NoAction; }
        default_action = NoAction();
    }
    apply { sub_t.apply(); }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Sub() sub;
    action set_out2(bit<8> v) { hdr.feat.out2 = v; }
    table sum_t {
        key = { hdr.feat.a + hdr.feat.b: exact @name("sum"); }
        actions = { set_out2; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (!hdr.feat.isValid()) {
            exit;
        }
        switch (hdr.feat.op) {
            1: { hdr.feat.out1 = sat_dec(hdr.feat.a, hdr.feat.b); }
            2:
            3: { hdr.feat.out1 = hdr.feat.a |+| hdr.feat.b; }
            default: { hdr.feat.out1 = 8w0xEE; }
        }
        sum_t.apply();
        sub.apply(hdr.feat, std);
        shared.write(0, hdr.feat.a);
        if (shared.read(0) == 8w7) {
            hdr.feat.out3 = hdr.feat.out3 | 8w0x80;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.feat);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
