/* action_selector.p4 -- ECMP with `implementation = action_selector` (named instance).
 * Tests: action_selector(HashAlgorithm.crc16, size, 16) declared as a named instance (p4c
 * needs that with --p4runtime-files), `selector` match keys (src, proto, sport, dport) next
 * to an lpm key in the same table, group members chosen as
 * members[crc16(selector fields) % group_size] (members ordered by handle; BMV2-FACTS.md).
 * The STF uses simple_switch_CLI action-profile commands (fabemu STF extension).
 * Packet: Ethernet + IPv4 + UDP; member i sends to port 2+i and writes its id into the
 * source MAC's last byte.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
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
        transition select(hdr.ipv4.protocol) {
            IPPROTO_UDP: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action_selector(HashAlgorithm.crc16, 32w1024, 32w16) ecmp_sel;

    action set_member(bit<8> id, bit<9> port) {
        hdr.ethernet.srcAddr[7:0] = id;
        std.egress_spec = port;
    }
    action drop() {
        mark_to_drop(std);
    }

    table ecmp {
        key = {
            hdr.ipv4.dstAddr:  lpm;
            hdr.ipv4.srcAddr:  selector;
            hdr.ipv4.protocol: selector;
            hdr.udp.srcPort:   selector;
            hdr.udp.dstPort:   selector;
        }
        actions = { set_member; drop; }
        implementation = ecmp_sel;
        size = 256;
    }

    apply {
        if (hdr.udp.isValid()) {
            ecmp.apply();
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
        pkt.emit(hdr.udp);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
