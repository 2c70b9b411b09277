/* header_stack.p4 -- header stacks (an MPLS label stack of depth 4).
 * Tests: parsing into a stack with .next in a loop, select on .last, stack indexing with
 * constants, push_front, pop_front, .size, setValid on a pushed element, deparsing a whole
 * stack, and parser error StackOutOfBounds (5 labels) reaching ingress.
 * Ingress: top label 100 -> pop it; top label 200 -> push label 300; then TTL-1 on [0].
 * A packet with too many labels gets egress port 3 (parser_error == StackOutOfBounds).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

const bit<16> ETHERTYPE_MPLS = 16w0x8847;

header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

struct headers_t {
    ethernet_t ethernet;
    mpls_t[4]  mpls;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_MPLS: parse_mpls;
            default: accept;
        }
    }
    state parse_mpls {
        pkt.extract(hdr.mpls.next);
        transition select(hdr.mpls.last.bos) {
            1w0: parse_mpls;
            1w1: accept;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (std.parser_error == error.StackOutOfBounds) {
            std.egress_spec = 3;
            return;
        }
        if (!hdr.mpls[0].isValid()) {
            return;
        }
        if (hdr.mpls[0].label == 20w100 && hdr.mpls[1].isValid()) {
            hdr.mpls.pop_front(1);
        } else if (hdr.mpls[0].label == 20w200 && !hdr.mpls[3].isValid()) {
            hdr.mpls.push_front(1);
            hdr.mpls[0].setValid();
            hdr.mpls[0].label = 20w300;
            hdr.mpls[0].tc = 3w5;
            hdr.mpls[0].bos = 1w0;
            hdr.mpls[0].ttl = 8w64;
        }
        hdr.mpls[0].ttl = hdr.mpls[0].ttl - 1;
        if (hdr.mpls.size == 32w4 && hdr.mpls[2].isValid()) {
            hdr.mpls[2].tc = 3w7;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.mpls);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
