/* json_forms.p4 -- constructs whose p4c-bm2-ss JSON takes forms the target must read.
 * Tests: a header-valued `?:` (`hdr.res = c ? hdr.a : hdr.b`: fields and validity copied),
 * a varbit field extracted with a run-time length and compared with itself through a
 * header copy (`==` on varbit), an assignment between headers of an invalid source.
 * Packet: Ethernet (0x88B5) + sel_t {sel} + pair_t a {x, y} + pair_t b {x, y}
 * + vb_t {len, v: varbit<32> of len bytes}; out: the same + res_t (pair_t) when valid.
 */
#include <core.p4>
#include <v1model.p4>
#include "../include/std_headers.p4"

header sel_t  { bit<8> sel; }
header pair_t { bit<8> x; bit<8> y; }
header vb_t   { bit<8> len; varbit<32> v; }

struct headers_t {
    ethernet_t ethernet;
    sel_t      sel;
    pair_t     a;
    pair_t     b;
    vb_t       vb;
    pair_t     res;
    pair_t     none;
}
struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.sel);
        pkt.extract(hdr.a);
        pkt.extract(hdr.b);
        pkt.extract(hdr.vb, (bit<32>)pkt.lookahead<bit<8>>() * 8);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.res = (hdr.sel.sel == 8w1) ? hdr.a : hdr.b;
        if (hdr.sel.sel == 8w2) {
            hdr.a = hdr.none;               // an invalid source: the target becomes invalid
        }
        vb_t copy = hdr.vb;
        if (copy.v == hdr.vb.v) {
            hdr.sel.sel = hdr.sel.sel | 8w0x80;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.sel);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.vb);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
