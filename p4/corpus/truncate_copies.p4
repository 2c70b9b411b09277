/* truncate_copies.p4 -- what `truncate` does to the copies of a packet. simple_switch
 * truncates only the packet `truncate` was called on, when it leaves the switch: an I2E
 * clone, multicast replicas, an E2E clone and a recirculated packet are whole.
 * Tests: ingress truncate with an I2E clone (port 1 cut, port 4 whole), with multicast
 * (ports 2 and 3 whole), before an egress recirculation (port 5 whole on the second
 * pass), egress truncate with an E2E clone (port 6 cut, port 7 whole).
 * Packet: eth_t, then h_t {mode, pass}, then payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header h_t {
    bit<8> mode;
    bit<8> pass;
}

struct headers_t {
    eth_t eth;
    h_t h;
}

struct meta_t {
    @field_list(0)
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.h.mode == 1) {
            std.egress_spec = 1;
            truncate(16);
            clone(CloneType.I2E, 5);
        } else if (hdr.h.mode == 2) {
            truncate(16);
            std.mcast_grp = 3;
        } else if (hdr.h.mode == 3) {
            std.egress_spec = 5;
            if (hdr.h.pass == 0) {
                truncate(16);
            }
        } else {
            std.egress_spec = 6;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (hdr.h.mode == 3 && hdr.h.pass == 0) {
            hdr.h.pass = 1;
            recirculate_preserving_field_list(0);
        }
        if (hdr.h.mode == 4 && std.instance_type == 0) {
            truncate(16);
            clone(CloneType.E2E, 6);
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
