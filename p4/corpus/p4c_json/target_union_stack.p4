/* target_union_stack.p4 -- a header-union stack parsed with run-time choice of member.
 * Each tag byte says which member follows: 1 -> a 1-byte header, 2 -> a 2-byte header;
 * up to three unions are extracted into the stack, then ingress records which members are
 * valid and pops the first union. (p4c-bm2-ss 1.2.4.8 would turn a select on
 * hdr.tags.lastIndex into an expression key that simple_switch 1.15.5 refuses to load.) */
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> kind; }
header one_t { bit<8> v; }
header two_t { bit<16> v; }
header_union u_t { one_t one; two_t two; }
header out_t { bit<8> valid_bits; bit<8> count; }

struct headers_t {
    out_t info;
    tag_t[3] tags;
    u_t[3] us;
}
struct meta_t { bit<8> ntags; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.info);
        transition next_tag;
    }
    state next_tag {
        pkt.extract(hdr.tags.next);
        m.ntags = m.ntags + 1;
        transition select(hdr.tags.last.kind) {
            1: get_one;
            2: get_two;
            default: accept;
        }
    }
    state get_one {
        pkt.extract(hdr.us.next.one);
        transition select(m.ntags) {
            3: accept;
            default: next_tag;
        }
    }
    state get_two {
        pkt.extract(hdr.us.next.two);
        transition select(m.ntags) {
            3: accept;
            default: next_tag;
        }
    }
}

control V(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<8> bits = 0;
        if (hdr.us[0].one.isValid()) { bits = bits | 0x01; }
        if (hdr.us[0].two.isValid()) { bits = bits | 0x02; }
        if (hdr.us[1].one.isValid()) { bits = bits | 0x04; }
        if (hdr.us[1].two.isValid()) { bits = bits | 0x08; }
        if (hdr.us[2].one.isValid()) { bits = bits | 0x10; }
        if (hdr.us[2].two.isValid()) { bits = bits | 0x20; }
        hdr.info.valid_bits = bits;
        hdr.info.count = hdr.tags[2].isValid() ? 8w3 : (hdr.tags[1].isValid() ? 8w2 : 8w1);
        hdr.us.pop_front(1);
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.info);
        pkt.emit(hdr.us);
    }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
