/* varbit_options.p4 -- variable-length headers, lookahead and advance.
 * Tests: varbit<320> IPv4 options extracted with the two-argument extract (length computed
 * from ihl at run time), deparsing a varbit, lookahead<bit<8>>() on the bytes after the IP
 * header, and advance(32) which consumes 4 bytes so they vanish from the output packet.
 * Ingress decrements TTL (no checksum update: this program is about parsing).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header ipv4_options_t {
    varbit<320> options;
}

struct headers_t {
    ethernet_t     ethernet;
    ipv4_t         ipv4;
    ipv4_options_t ipv4_options;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.ipv4_options, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 16w5) * 16w32));
        transition select(pkt.lookahead<bit<8>>()) {
            8w0xAA: skip_shim;
            default: accept;
        }
    }
    state skip_shim {
        pkt.advance(32);   // drop a 4-byte shim starting with 0xAA
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.ipv4_options);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
