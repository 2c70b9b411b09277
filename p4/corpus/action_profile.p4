/* action_profile.p4 -- indirect tables: `implementation = action_profile`.
 * Tests: a named action_profile instance, a table whose entries point to shared members.
 * The STF uses simple_switch_CLI commands that bmv2stf does not define
 * (act_prof_create_member, table_indirect_add, table_indirect_set_default): a fabemu STF
 * extension (real bmv2stf ignores them, so this STF runs only on fabemu's target).
 * Packet: Ethernet + IPv4; the member rewrites the destination MAC and picks the port.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
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
    action_profile(32w128) nh_profile;

    action set_nh(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        std.egress_spec = port;
    }
    action drop() {
        mark_to_drop(std);
    }

    table routes {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { set_nh; drop; }
        implementation = nh_profile;
        size = 64;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            routes.apply();
        } else {
            mark_to_drop(std);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
