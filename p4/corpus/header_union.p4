/* header_union.p4 -- header unions.
 * Tests: a header_union of two alternatives chosen by lookahead<bit<8>>() in the parser,
 * isValid() on the union and on its members, setValid() of one member invalidating the
 * other, setInvalid() removing a member, and deparsing a union (only the valid member is emitted).
 * Packet: Ethernet (0x88B5) + one of short_t (kind 1) / long_t (kind 2) / nothing.
 * Ingress adds a verdict_t header: which = 0xA (short), 0xB (long), 0x0 (none),
 * 0xD (short with value 0: the member is invalidated and not emitted).
 * A long_t is converted to a short_t carrying the low 16 bits of its value.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header short_t {
    bit<8>  kind;
    bit<16> value;
}

header long_t {
    bit<8>  kind;
    bit<32> value;
}

header_union choice_t {
    short_t s;
    long_t  l;
}

header verdict_t {
    bit<8> which;
}

struct headers_t {
    ethernet_t ethernet;
    verdict_t  verdict;
    choice_t   choice;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(pkt.lookahead<bit<8>>()) {
            8w1: parse_short;
            8w2: parse_long;
            default: accept;
        }
    }
    state parse_short {
        pkt.extract(hdr.choice.s);
        transition accept;
    }
    state parse_long {
        pkt.extract(hdr.choice.l);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.verdict.setValid();
        hdr.verdict.which = 8w0;
        if (!hdr.choice.isValid()) {
            return;
        }
        if (hdr.choice.s.isValid() && hdr.choice.s.value == 16w0) {
            hdr.verdict.which = 8w0xD;
            hdr.choice.s.setInvalid();        // removed from the packet
        } else if (hdr.choice.s.isValid()) {
            hdr.verdict.which = 8w0xA;
            hdr.choice.s.value = hdr.choice.s.value + 1;
        } else if (hdr.choice.l.isValid()) {
            hdr.verdict.which = 8w0xB;
            bit<16> low = hdr.choice.l.value[15:0];
            hdr.choice.s.setValid();          // makes choice.l invalid
            hdr.choice.s.kind = 8w1;
            hdr.choice.s.value = low;
            if (hdr.choice.l.isValid()) {
                hdr.verdict.which = 8w0xFF;   // must not happen
            }
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.verdict);
        pkt.emit(hdr.choice);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
