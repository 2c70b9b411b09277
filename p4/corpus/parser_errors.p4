/* parser_errors.p4 -- verify() with custom errors; v1model does not drop on reject.
 * Tests: an `error { ... }` declaration with custom errors, verify(cond, error.X),
 * standard_metadata.parser_error reaching ingress (NoError / custom / PacketTooShort),
 * a header extracted before a failing verify staying valid, one that failed to extract
 * staying invalid.
 * Routing: NoError -> port 1; BadVersion -> port 2; TooManyHops -> port 3;
 * PacketTooShort -> port 4. The verdict is also written into the header when it is valid.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

error {
    BadVersion,
    TooManyHops
}

header probe_t {
    bit<4>  version;
    bit<4>  hops;
    bit<8>  verdict;
    bit<16> data;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t    probe;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_TEST: parse_probe;
            default: accept;
        }
    }
    state parse_probe {
        pkt.extract(hdr.probe);
        verify(hdr.probe.version == 4w1, error.BadVersion);
        verify(hdr.probe.hops < 4w8, error.TooManyHops);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        bit<8> v = 8w0;
        if (std.parser_error == error.NoError) {
            std.egress_spec = 1;
            v = 8w0x01;
        } else if (std.parser_error == error.BadVersion) {
            std.egress_spec = 2;
            v = 8w0xB1;
        } else if (std.parser_error == error.TooManyHops) {
            std.egress_spec = 3;
            v = 8w0xB2;
        } else if (std.parser_error == error.PacketTooShort) {
            std.egress_spec = 4;
        } else {
            std.egress_spec = 5;
        }
        if (hdr.probe.isValid()) {
            hdr.probe.verdict = v;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
