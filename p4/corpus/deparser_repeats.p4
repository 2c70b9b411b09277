/* deparser_repeats.p4 -- headers emitted more than once. p4c keeps every emit in the
 * deparser's order, so a header emitted twice goes out twice when valid (and not at all
 * when invalid); a stack element emitted after its whole stack goes out again.
 * Tests: one header emitted twice in a row, a stack then one of its elements, a header
 * emitted again at the end; elements made invalid in ingress (k = 1, 2) skip every emit.
 * Packet: ctl_t {k, x}, three e_t stack elements, then t_t when k != 3.
 */
#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<8> k;
    bit<8> x;
}

header e_t {
    bit<8> v;
}

header t_t {
    bit<16> y;
}

struct headers_t {
    ctl_t ctl;
    e_t[3] s;
    t_t t;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition select(hdr.ctl.k) {
            3: accept;
            default: parse_t;
        }
    }
    state parse_t {
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.ctl.k == 1) {
            hdr.s[1].setInvalid();
        }
        if (hdr.ctl.k == 2) {
            hdr.s[0].setInvalid();
            hdr.s[2].setInvalid();
            hdr.t.setInvalid();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.s);
        pkt.emit(hdr.t);
        pkt.emit(hdr.s[1]);
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
