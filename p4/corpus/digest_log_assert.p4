/* digest_log_assert.p4 -- externs with no packet effect: digest, log_msg, assert, assume.
 * Tests: digest<learn_t>(1, {...}) with a named struct (MAC learning shape), log_msg with
 * and without a field list argument, assert() and assume() with conditions that hold (a
 * failing assert stops BMv2, so only true conditions are used). The STF pins forwarding
 * and that these calls do not disturb the packet; ingress also copies the digested values
 * into the packet.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header learn_hdr_t {
    bit<48> mac;
    bit<16> port;
}

struct learn_t {
    bit<48> mac;
    bit<9>  port;
}

struct headers_t {
    ethernet_t  ethernet;
    learn_hdr_t learned;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        assert(hdr.ethernet.isValid());
        assume(std.ingress_port < 9w511);
        log_msg("corpus: packet in");
        log_msg("corpus: port {} src {}", { std.ingress_port, hdr.ethernet.srcAddr });
        digest<learn_t>(32w1, { hdr.ethernet.srcAddr, std.ingress_port });
        hdr.learned.setValid();
        hdr.learned.mac = hdr.ethernet.srcAddr;
        hdr.learned.port = (bit<16>)std.ingress_port;
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        assert(std.egress_port == 9w1);
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.learned);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
