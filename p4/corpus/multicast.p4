/* multicast.p4 -- replication through standard_metadata.mcast_grp, and drops.
 * Tests: setting mcast_grp in ingress, the STF's multicast group commands
 * (mc_mgrp_create / mc_node_create / mc_node_associate), egress_rid and egress_port and
 * instance_type 5 (replica) visible in egress, mark_to_drop(standard_metadata) in egress
 * (drops one replica) and in ingress (drops the packet).
 * Packet: Ethernet (0x88B5) + mc_t {grp, rid, port, inst}.
 *   grp 0: unicast to port 1; grp 0xFF: dropped in ingress; other: multicast group grp.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header mc_t {
    bit<8> grp;
    bit<8> rid;
    bit<8> port;
    bit<8> inst;
}

struct headers_t {
    ethernet_t ethernet;
    mc_t       mc;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.mc);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.mc.grp == 8w0xFF) {
            mark_to_drop(std);
        } else if (hdr.mc.grp == 8w0) {
            std.egress_spec = 1;
        } else {
            std.mcast_grp = (bit<16>)hdr.mc.grp;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.mc.rid = (bit<8>)std.egress_rid;
        hdr.mc.port = (bit<8>)std.egress_port;
        hdr.mc.inst = (bit<8>)std.instance_type;
        if (std.egress_port == 9w4 && std.egress_rid == 16w7) {
            mark_to_drop(std);
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.mc);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
