/* clone.p4 -- ingress-to-egress and egress-to-egress clones.
 * Tests: clone(CloneType.I2E, session), clone(CloneType.E2E, session),
 * clone_preserving_field_list(I2E / E2E, ...) with a @field_list(1) metadata field,
 * standard_metadata.instance_type in egress, mirroring sessions from the STF
 * (`mirroring_add 5 3`, `mirroring_add 6 4`).
 * An I2E clone is the packet as it entered ingress (re-parsed, ingress edits lost, metadata
 * reset except the preserved field list); an E2E clone is the original's headers as they
 * were at the end of its egress, sent through egress again.
 * Packet: Ethernet (0x88B5) + mark_t {kind, ing, inst, saved}.
 *   kind 1: clone I2E; kind 2: clone_preserving_field_list I2E;
 *   kind 3: clone_preserving_field_list E2E; kind 4: clone E2E (in egress).
 */
#include <core.p4>
#include <v1model.p4>
// BMv2 instance_type values (simple_switch); v1model.p4 does not name them.
#define BMV2_V1MODEL_INSTANCE_TYPE_NORMAL   0
#include "include/std_headers.p4"

const bit<32> I2E_SESSION = 32w5;
const bit<32> E2E_SESSION = 32w6;
const bit<8> FL_SAVED = 8w1;

header mark_t {
    bit<8> kind;
    bit<8> ing;
    bit<8> inst;
    bit<8> saved;
}

struct headers_t {
    ethernet_t ethernet;
    mark_t     mark;
}

struct meta_t {
    @field_list(1)
    bit<8> saved;
    bit<8> not_saved;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.mark);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.mark.ing = 8w0xAA;
        meta.saved = 8w0x5A;
        meta.not_saved = 8w0xF7;
        if (hdr.mark.kind == 8w1) {
            clone(CloneType.I2E, I2E_SESSION);
        } else if (hdr.mark.kind == 8w2) {
            clone_preserving_field_list(CloneType.I2E, I2E_SESSION, FL_SAVED);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.mark.inst = (bit<8>)std.instance_type;
        hdr.mark.saved = meta.saved | (meta.not_saved & 8w0x80);
        if (std.instance_type == BMV2_V1MODEL_INSTANCE_TYPE_NORMAL) {
            if (hdr.mark.kind == 8w3) {
                clone_preserving_field_list(CloneType.E2E, E2E_SESSION, FL_SAVED);
            } else if (hdr.mark.kind == 8w4) {
                clone(CloneType.E2E, E2E_SESSION);
            }
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.mark);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
