/* ECMP: a named action_selector (crc16) and an anonymous action_profile. */
#include "common.p4"

SIMPLE_PARSER
EMPTY_CONTROLS

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_port(bit<9> port) { std.egress_spec = port; }
    action_selector(HashAlgorithm.crc16, 32w1024, 32w16) ecmp_sel;
    table ecmp {
        key = {
            hdr.ipv4.dstAddr: exact;
            hdr.ipv4.srcAddr: selector;
            hdr.ipv4.protocol: selector;
        }
        actions = { set_port; NoAction; }
        implementation = ecmp_sel;
    }
    table prof {
        key = { hdr.ethernet.srcAddr: ternary; }
        actions = { set_port; }
        implementation = action_profile(32w128);
    }
    apply {
        ecmp.apply();
        prof.apply();
    }
}

EMPTY_EGRESS
SIMPLE_DEPARSER
MAIN
