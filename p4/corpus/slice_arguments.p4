/* slice_arguments.p4 -- slices of fields given as out/inout arguments. The callee works on
 * a copy of the slice, written back into those bits of the field at the end (P4's
 * copy-in/copy-out), the field's other bits kept.
 * Tests: a directly called action with an inout bit<1> slice whose body also writes the
 * whole field (the copy-out wins for that bit), a function with an out slice, a table
 * action with an inout slice bound in its actions list, a sub-control applied with an
 * inout slice, a slice of a local variable.
 * Packet: sa_t {a, b, c, d, e} (one byte each).
 */
#include <core.p4>
#include <v1model.p4>

header sa_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
}

struct headers_t {
    sa_t sa;
}

struct meta_t {
    bit<8> unused;
}

void put_nibble(out bit<4> n, in bit<4> v) {
    n = v;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.sa);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control Flip(inout bit<2> bits) {
    apply {
        bits = ~bits;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Flip() flip;

    action set_bit(inout bit<1> b) {
        hdr.sa.a = 2;
        b = 1;
    }

    action set_one(inout bit<1> b) {
        b = 1;
    }

    action inc_nibble(inout bit<4> n) {
        n = n + 1;
    }

    table t {
        actions = { inc_nibble(hdr.sa.c[7:4]); }
        default_action = inc_nibble(hdr.sa.c[7:4]);
    }

    apply {
        std.egress_spec = 1;
        set_bit(hdr.sa.a[0:0]);
        put_nibble(hdr.sa.b[3:0], 4w0x9);
        t.apply();
        flip.apply(hdr.sa.d[5:4]);
        bit<8> x = hdr.sa.e;
        set_one(x[7:7]);
        hdr.sa.e = x;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.sa); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
