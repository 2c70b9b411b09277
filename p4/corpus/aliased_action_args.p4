/* aliased_action_args.p4 -- a table's action whose directional parameters are bound (in
 * the actions list) to overlapping storage: P4 copies the arguments in before the action
 * and back after it, so the action sees the values from before it ran.
 * Tests: `in` and `inout` bound to one field (the `in` keeps the old value after the
 * `inout` is written), two `inout`s bound to one field (written back left to right), `out`
 * and `in` bound to one field, a whole header as `inout` with one of its fields as `in`, an
 * aliased action that exits (its arguments are written back before the exit; the statement
 * after the table does not run).
 * Packet: Ethernet (0x88B5) + alias_t {k, a, b, c, d, e, f}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header alias_t {
    bit<8> k;
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
    bit<8> f;
}

struct headers_t {
    ethernet_t ethernet;
    alias_t    al;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.al);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    // v is the field's value from before the action, not the one just written through dst
    action set_add(in bit<8> v, inout bit<8> dst, bit<8> d) {
        dst = d;
        dst = dst + v;
    }
    // x and y start as the same value; y is written back last
    action two(inout bit<8> x, inout bit<8> y, bit<8> d) {
        x = d;
        y = y + x;
    }
    action out_in(out bit<8> o, in bit<8> v) {
        o = 8w3;
        hdr.al.e = v;
    }
    action whole(inout alias_t h, in bit<8> v, bit<8> d) {
        h.d = d;
        h.e = v;
    }
    action set_add_exit(in bit<8> v, inout bit<8> dst, bit<8> d) {
        dst = d;
        dst = dst + v;
        exit;
    }
    table t {
        key = { hdr.al.k: exact; }
        actions = {
            set_add(hdr.al.a, hdr.al.a);
            two(hdr.al.b, hdr.al.b);
            out_in(hdr.al.c, hdr.al.c);
            whole(hdr.al, hdr.al.d);
            set_add_exit(hdr.al.a, hdr.al.a);
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        t.apply();
        hdr.al.f = 8w0xff;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.al);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
