/* typedef_fields.p4 -- header fields reached through typedefs and new types.
 * Tests: fields of typedef'd types (a typedef of a typedef too), a field of a `type`
 * (new type) used in a comparison with a cast, as a table key and as an action parameter,
 * a header declared through a typedef of its header type, assignment between the alias and
 * the original header type.
 * Packet: Ethernet (0x88B5) + base_t {src, dst, p, q}; the deparser adds a copy g.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

typedef bit<32> ip4_t;
typedef ip4_t addr_t;
type bit<16> port_t;

header base_t {
    addr_t  src;
    ip4_t   dst;
    port_t  p;
    bit<16> q;
}

typedef base_t alias_t;

struct headers_t {
    ethernet_t ethernet;
    alias_t    h;
    base_t     g;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_p(port_t v) {
        hdr.h.p = v;
    }
    table t {
        key = { hdr.h.src: exact; hdr.h.p: exact; }
        actions = { set_p; NoAction; }
        default_action = NoAction();
    }

    apply {
        std.egress_spec = 1;
        if (hdr.h.p == (port_t)16w5) {
            hdr.h.q = (bit<16>)hdr.h.p + 16w1;
        }
        hdr.g = hdr.h;
        hdr.g.dst = hdr.h.src + 32w1;
        t.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.h);
        pkt.emit(hdr.g);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
