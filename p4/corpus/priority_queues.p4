/* priority_queues.p4 -- standard_metadata.priority (the egress queue on simple_switch
 * --priority-queues N; queue 0 is the lowest, N-1 the highest).
 * Tests: setting standard_metadata.priority from the IPv4 DSCP in ingress (by a table with
 * const entries), and the value arriving in egress, where it is copied into the packet.
 * Needs simple_switch `--priority-queues 8`: with the default single queue simple_switch
 * drops every packet whose priority is >= 1. Strict-priority scheduling itself is a
 * traffic-manager property tested elsewhere.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header prio_t {
    bit<8> seen_in_egress;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    prio_t     prio;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_queue(bit<3> q) {
        std.priority = q;
    }
    table dscp_to_queue {
        key = { hdr.ipv4.diffserv[7:2]: exact @name("dscp"); }
        actions = { set_queue; }
        const default_action = set_queue(3w0);
        const entries = {
            6w46: set_queue(3w7);   // EF
            6w26: set_queue(3w3);   // AF31 (RoCE traffic class in many fabrics)
            6w48: set_queue(3w6);   // CS6 (CNP)
        }
    }
    apply {
        std.egress_spec = 1;
        if (hdr.ipv4.isValid()) {
            dscp_to_queue.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.prio.setValid();
        hdr.prio.seen_in_egress = (bit<8>)std.priority;
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.prio);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
