/* Header stacks: extract .next in a loop, .last in select, push_front/pop_front, indexing. */
#include "common.p4"

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            16w0x8100: parse_vlan;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan.next);
        transition select(hdr.vlan.last.etherType) {
            16w0x8100: parse_vlan;
            default: accept;
        }
    }
}

EMPTY_CONTROLS

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.vlan[1].isValid()) {
            hdr.vlan.pop_front(1);
        } else {
            hdr.vlan.push_front(1);
            hdr.vlan[0].setValid();
            hdr.vlan[0].tci = 16w7;
        }
    }
}

EMPTY_EGRESS
SIMPLE_DEPARSER
MAIN
