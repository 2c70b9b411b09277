/* union_stack.p4 -- header-union stacks (a stack whose elements are header unions).
 * Tests: extract into `u[0].a` / `u[1].b` (constant index) and into `u.next.b`, `u.next.a`
 * (the stack's next element), isValid() of the members, `u.size`,
 * setValid() of a member invalidating its sibling in the same element, setInvalid(), and
 * deparsing the stack (each element's valid member, in order).
 * Packet: Ethernet (0x88B5) + sel_t {mode, tag, info} + the elements tag asks for:
 * tag 0 -> u[0].a, u[1].b; tag 1 -> next.b, next.a; tag 2 -> next.a; else none.
 * info is set to the validity bits seen by ingress (before mode changes them):
 * 0x01 u[0].a, 0x02 u[0].b, 0x04 u[1].a, 0x08 u[1].b, 0x20 size is 2. (`u[1].isValid()`
 * of a whole element is left out: p4c-bm2-ss 1.2.4.8 writes it as `valid_union` of a
 * "header" operand, which simple_switch 1.15.5 refuses to load.)
 * mode 0: valid u[0].a and u[1].b values + 1; 1: u[0].a.setValid(), v = 0x77;
 * 2: u[0].a.setInvalid(); 3: u[1].a.setValid(), v = 0x55.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header sel_t {
    bit<8> mode;
    bit<8> tag;
    bit<8> info;
}

header a_t {
    bit<8> v;
}

header b_t {
    bit<16> v;
}

header_union ab_t {
    a_t a;
    b_t b;
}

struct headers_t {
    ethernet_t ethernet;
    sel_t      sel;
    ab_t[2]    u;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.sel);
        transition select(hdr.sel.tag) {
            0: by_index;
            1: by_next;
            2: one_next;
            default: accept;
        }
    }
    state by_index {
        pkt.extract(hdr.u[0].a);
        pkt.extract(hdr.u[1].b);
        transition accept;
    }
    state by_next {
        pkt.extract(hdr.u.next.b);
        pkt.extract(hdr.u.next.a);
        transition accept;
    }
    state one_next {
        pkt.extract(hdr.u.next.a);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        bit<8> bits = 0;
        if (hdr.u[0].a.isValid()) { bits = bits | 0x01; }
        if (hdr.u[0].b.isValid()) { bits = bits | 0x02; }
        if (hdr.u[1].a.isValid()) { bits = bits | 0x04; }
        if (hdr.u[1].b.isValid()) { bits = bits | 0x08; }
        if (hdr.u.size == 2) { bits = bits | 0x20; }
        hdr.sel.info = bits;
        if (hdr.sel.mode == 0) {
            if (hdr.u[0].a.isValid()) { hdr.u[0].a.v = hdr.u[0].a.v + 1; }
            if (hdr.u[1].b.isValid()) { hdr.u[1].b.v = hdr.u[1].b.v + 1; }
        } else if (hdr.sel.mode == 1) {
            hdr.u[0].a.setValid();            // invalidates u[0].b
            hdr.u[0].a.v = 0x77;
        } else if (hdr.sel.mode == 2) {
            hdr.u[0].a.setInvalid();
        } else if (hdr.sel.mode == 3) {
            hdr.u[1].a.setValid();            // invalidates u[1].b
            hdr.u[1].a.v = 0x55;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.sel);
        pkt.emit(hdr.u);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
