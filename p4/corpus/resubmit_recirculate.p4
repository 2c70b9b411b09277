/* resubmit_recirculate.p4 -- resubmit and recirculate with preserved metadata.
 * Tests: resubmit_preserving_field_list(0) from ingress and
 * recirculate_preserving_field_list(1) from egress, with @field_list annotations on
 * metadata fields (one field in both lists), instance_type 6 (resubmit) and 4 (recirculate)
 * as seen in ingress.
 * Resubmit: the original packet re-enters ingress; only the first pass's preserved fields
 * survive. Recirculate: the deparsed packet (egress edits kept) re-enters the parser.
 * Packet: Ethernet (0x88B5) + loop_t {kind, seen, passes, carried}.
 */
#include <core.p4>
#include <v1model.p4>
// BMv2 instance_type values (simple_switch); v1model.p4 does not name them.
#define BMV2_V1MODEL_INSTANCE_TYPE_RECIRC   4
#define BMV2_V1MODEL_INSTANCE_TYPE_RESUBMIT 6
#include "include/std_headers.p4"

header loop_t {
    bit<8> kind;
    bit<8> seen;
    bit<8> passes;
    bit<8> carried;
}

struct headers_t {
    ethernet_t ethernet;
    loop_t     loop;
}

struct meta_t {
    @field_list(0, 1)
    bit<8> carried;
    @field_list(0)
    bit<8> resub_only;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.loop);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (std.instance_type == BMV2_V1MODEL_INSTANCE_TYPE_RESUBMIT) {
            hdr.loop.seen = 8w0x60 | meta.resub_only;
            hdr.loop.carried = meta.carried;
        } else if (std.instance_type == BMV2_V1MODEL_INSTANCE_TYPE_RECIRC) {
            hdr.loop.seen = 8w0x40 | meta.resub_only;
            hdr.loop.carried = meta.carried;
        } else if (hdr.loop.kind == 8w1) {
            meta.carried = 8w0x11;
            meta.resub_only = 8w0x01;
            hdr.loop.passes = 8w0xFF;     // lost: resubmit restarts from the original packet
            resubmit_preserving_field_list(8w0);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        // instance_type is NORMAL again in egress for a recirculated unicast packet, so the
        // preserved metadata (still 0 on the first pass) tells the passes apart
        if (hdr.loop.kind == 8w2 && meta.carried == 8w0) {
            hdr.loop.passes = hdr.loop.passes + 1;   // kept: recirculation sends the deparsed packet
            meta.carried = 8w0x22;
            meta.resub_only = 8w0x02;                // not in list 1: reset to 0
            recirculate_preserving_field_list(8w1);
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.loop);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
