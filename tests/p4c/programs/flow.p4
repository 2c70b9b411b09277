/* Control flow: switch on action_run, hit/miss, exit, return, if inside an action, locals. */
#include "common.p4"

SIMPLE_PARSER
EMPTY_CONTROLS

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    bit<8> local = 8w0;
    action a1(bit<8> v) {
        if (v == 8w0) {
            mark_to_drop(std);
        } else {
            hdr.ipv4.ttl = v;
        }
    }
    action a2() { exit; }
    table t1 {
        key = { hdr.ipv4.dstAddr: ternary; hdr.ipv4.protocol: range; }
        actions = { a1; a2; NoAction; }
        const entries = {
            (32w0x0a000000 &&& 32w0xff000000, 8w6 .. 8w17): a1(8w1);
            (_, _): a2();
        }
    }
    table t2 {
        key = { hdr.ethernet.etherType: exact; }
        actions = { NoAction; }
    }
    apply {
        switch (t1.apply().action_run) {
            a1: { local = 8w1; }
            a2: { return; }
            default: { local = 8w3; }
        }
        if (!t2.apply().hit) {
            hdr.ipv4.diffserv = local;
            exit;
        }
        hdr.ipv4.ttl = 8w9;
    }
}

EMPTY_EGRESS
SIMPLE_DEPARSER
MAIN
