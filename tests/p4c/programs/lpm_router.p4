/* An L3 router: lpm table with action data, a const default action and a size. */
#include "common.p4"

SIMPLE_PARSER
EMPTY_CONTROLS

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action drop() {
        mark_to_drop(std);
    }
    action forward(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        std.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table routes {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { forward; drop; }
        const default_action = drop();
        size = 512;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            routes.apply();
        }
    }
}

EMPTY_EGRESS
SIMPLE_DEPARSER
MAIN
