/* table_keys.p4 -- table keys that are not plain fields.
 * Tests: a constant key (`8w5: exact`, which p4c accepts with a warning and BMv2 matches on:
 * entries with another value never hit), an arithmetic key (`a + b`), a slice key (`a[7:4]`),
 * all named with @name for the control plane.
 * Packet: Ethernet (0x88B5) + k_t {a, b, r}; r is the action's value (0 on a miss).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header k_t {
    bit<8> a;
    bit<8> b;
    bit<8> r;
}

struct headers_t {
    ethernet_t ethernet;
    k_t        k;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.k);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set(bit<8> v) { hdr.k.r = v; }

    table t {
        key = {
            8w5               : exact @name("five");
            hdr.k.a + hdr.k.b : exact @name("sum");
            hdr.k.a[7:4]      : exact @name("hi");
        }
        actions = { set; NoAction; }
        default_action = NoAction();
    }

    apply {
        std.egress_spec = 1;
        t.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.k);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
