/* control_args.p4 -- sub-control arguments are copied in and out, as P4 says.
 * Tests: `c.apply(x, x)` with an inout and an in parameter (the in value is x before the
 * call), with two inout parameters (written back left to right), an in argument that is an
 * expression (evaluated once, before the body), a `return` in the callee (the copies are
 * still written back), an `exit` in the callee (written back before leaving; the caller's
 * later statements do not run); a control applied by its type name (`Outer.apply(...)`,
 * instantiated implicitly) whose local instance gets another control as a constructor
 * argument (`Twice(b) t`, `control bump_t(...)` as the parameter's type); an out header
 * argument starts invalid in the callee, though the caller's header is valid.
 * Packet: Ethernet (0x88B5) + args_t {m, p, q, r, s, t, u} + out_t {v}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header args_t {
    bit<8> m;
    bit<8> p;
    bit<8> q;
    bit<8> r;
    bit<8> s;
    bit<8> t;
    bit<8> u;
}

header out_t {
    bit<8> v;
}

struct headers_t {
    ethernet_t ethernet;
    args_t     x;
    out_t      o;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.x);
        pkt.extract(hdr.o);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control Add(inout bit<8> a, in bit<8> b) {
    apply {
        a = a + 8w1;
        a = a + b;
    }
}

control Inc2(inout bit<8> a, inout bit<8> b) {
    apply {
        a = a + 8w1;
        b = b + 8w2;
    }
}

control Ret(inout bit<8> a, inout bit<8> b) {
    apply {
        a = 8w1;
        if (b == 8w5) {
            return;
        }
        b = 8w3;
    }
}

control IncExit(inout bit<8> a, in bit<8> b) {
    apply {
        a = a + b;
        if (a == 8w0) {
            exit;
        }
        a = a + 8w1;
    }
}

control Fresh(out out_t h) {
    apply {
        if (h.isValid()) {
            h.v = 8w0xbb;
        } else {
            h.setValid();
            h.v = 8w0xaa;
        }
    }
}

control bump_t(inout bit<8> v);

control Bump(inout bit<8> v) {
    apply {
        v = v + 8w1;
    }
}

control Twice(inout bit<8> v)(bump_t c) {
    apply {
        c.apply(v);
        c.apply(v);
    }
}

control Outer(inout bit<8> v) {
    Bump() b;
    Twice(b) t;
    apply {
        t.apply(v);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Add() add;
    Add() add2;
    Inc2() inc2;
    Ret() ret;
    IncExit() ie;
    Fresh() fresh;

    apply {
        std.egress_spec = 1;
        add.apply(hdr.x.p, hdr.x.p);
        inc2.apply(hdr.x.q, hdr.x.q);
        add2.apply(hdr.x.r, hdr.x.r + 8w1);
        ret.apply(hdr.x.s, hdr.x.s);
        Outer.apply(hdr.x.t);
        fresh.apply(hdr.o);
        ie.apply(hdr.x.u, hdr.x.u);
        hdr.x.m = 8w0xee;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.x);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
