/* header_equality.p4 -- `==` and `!=` between whole headers.
 * Tests: two valid headers with equal / different fields, a valid and an invalid header,
 * two invalid headers (equal), a header-typed local copy changed then compared (`!=`).
 * Packet: Ethernet (0x88B5) + flags_t {has_q, res} + pair_t p {x, y} [+ pair_t q if has_q];
 * res bits: 0 p==q, 1 u==w (both never valid), 2 copy!=p, 3 p!=q.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header flags_t { bit<8> has_q; bit<8> res; }
header pair_t  { bit<8> x; bit<8> y; }

struct headers_t {
    ethernet_t ethernet;
    flags_t    flags;
    pair_t     p;
    pair_t     q;
    pair_t     u;
    pair_t     w;
}
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.flags);
        pkt.extract(hdr.p);
        transition select(hdr.flags.has_q) {
            8w1: parse_q;
            default: accept;
        }
    }
    state parse_q {
        pkt.extract(hdr.q);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        bit<8> r = 8w0;
        if (hdr.p == hdr.q) { r = r | 8w1; }
        if (hdr.u == hdr.w) { r = r | 8w2; }
        pair_t c = hdr.p;
        c.y = c.y + 8w1;
        if (c != hdr.p) { r = r | 8w4; }
        if (hdr.p != hdr.q) { r = r | 8w8; }
        hdr.flags.res = r;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.flags);
        pkt.emit(hdr.p);
        pkt.emit(hdr.q);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
