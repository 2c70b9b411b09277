/* truncate.p4 -- the truncate(length) extern.
 * Tests: truncate(24) in ingress: the packet leaves with at most its first 24 bytes
 * (headers as deparsed, then payload), shorter packets are unchanged. Packets whose first
 * payload byte is 0x00 are not truncated.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header first_t {
    bit<8> flag;
}

struct headers_t {
    ethernet_t ethernet;
    first_t    first;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.first);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.first.flag != 8w0) {
            truncate(32w24);
            hdr.first.flag = 8w0xFF;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.first);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
