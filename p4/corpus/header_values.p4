/* header_values.p4 -- headers and structs as values.
 * Tests: header assignment copies validity (`hdr.c = hdr.b` with b valid or not), a
 * header-typed local, a function returning a header, header fields of a typedef'd type,
 * struct initializers (positional and named), struct == struct, struct != {initializer},
 * header == header, slice-of-slice assignment, header-stack locals (assigned element by
 * element, initialised from another stack) and stack == stack, a `{...}` argument for a
 * struct-typed `in` parameter (a struct holding a header: the header made valid).
 * Packet: Ethernet (0x88B5) + ctl_t {mode, res, bits} + item_t a (+ item_t b if mode.0).
 * res bits: 0x01 meta.p == meta.q, 0x02 meta.p != {1, 2}, 0x04 hdr.c == hdr.b,
 * 0x08 st == st2 (st = {a, b}; st2 = st with st2[1].val = 0 when mode.2).
 * bits[7:0] = item_sum({{1, a.val}}) = 1 + a.val.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

typedef bit<8> byte_t;

header ctl_t {
    bit<8>  mode;
    bit<8>  res;
    bit<16> bits;
}

header item_t {
    byte_t kind;
    bit<8> val;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t      ctl;
    item_t     a;
    item_t     b;
    item_t     c;
    item_t     d;
}

struct holder_t {
    item_t it;
}

struct meta_t {
    pair_t p;
    pair_t q;
}

item_t make_item(in byte_t k, in bit<8> v) {
    item_t r;
    r.setValid();
    r.kind = k;
    r.val = v;
    return r;
}

bit<8> item_sum(in holder_t h) {
    if (!h.it.isValid()) {
        return 8w0;
    }
    return h.it.kind + h.it.val;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.a);
        transition select(hdr.ctl.mode[0:0]) {
            1w1: parse_b;
            default: accept;
        }
    }
    state parse_b {
        pkt.extract(hdr.b);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.c = hdr.b;
        item_t tmp = hdr.a;
        tmp.val = tmp.val + 8w1;
        hdr.d = tmp;
        if (hdr.ctl.mode[1:1] == 1w1) {
            hdr.d = make_item(8w0xD0, hdr.a.val);
        }
        meta.p = {hdr.a.kind, hdr.a.val};
        meta.q = {x = hdr.a.kind, y = 8w7};
        bit<8> res = 8w0;
        if (meta.p == meta.q) {
            res = res | 8w0x01;
        }
        if (meta.p != {8w1, 8w2}) {
            res = res | 8w0x02;
        }
        if (hdr.c == hdr.b) {
            res = res | 8w0x04;
        }
        item_t[2] st;
        st[0] = hdr.a;
        st[1] = hdr.b;
        item_t[2] st2 = st;
        if (hdr.ctl.mode[2:2] == 1w1) {
            st2[1].val = 8w0;
        }
        if (st == st2) {
            res = res | 8w0x08;
        }
        hdr.ctl.res = res;
        hdr.ctl.bits[15:8][3:0] = 4w0xA;
        hdr.ctl.bits[7:0] = item_sum({ {8w1, hdr.a.val} });
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
        pkt.emit(hdr.c);
        pkt.emit(hdr.d);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
