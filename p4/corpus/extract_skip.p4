/* extract_skip.p4 -- `pkt.extract<T>(_)` reads a T from the packet and drops it.
 * Tests: the skipped header is not emitted, the header after it is parsed from the right
 * offset.
 * Packet: Ethernet (0x88B5) + pad_t (skipped) + val_t {v}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header pad_t {
    bit<16> p;
}

header val_t {
    bit<8> v;
}

struct headers_t {
    ethernet_t ethernet;
    val_t      val;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract<pad_t>(_);
        pkt.extract(hdr.val);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.val.v = hdr.val.v + 8w1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.val);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
