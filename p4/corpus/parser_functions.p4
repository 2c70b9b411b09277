/* parser_functions.p4 -- functions called in parser states. p4c inlines a function's
 * body where it is called; fabemu does the same for straight-line functions (no `if`, no
 * early `return`: a parser state's op list has no jumps) and refuses others at the call.
 * Tests: a call in an assignment, a void function with an `inout` argument called as a
 * statement, a function with a local variable, nested calls (`inc(inc(x))`), a call in a
 * `select` key, calls in both branches of an `if` in a parser state.
 * Packet: pf_t {k, a, b, r1, r2(16), r3}; opt_t follows when k + 2 == 3.
 */
#include <core.p4>
#include <v1model.p4>

header pf_t {
    bit<8> k;
    bit<8> a;
    bit<8> b;
    bit<8> r1;
    bit<16> r2;
    bit<8> r3;
}

header opt_t {
    bit<8> v;
}

struct headers_t {
    pf_t pf;
    opt_t opt;
}

struct meta_t {
    bit<8> m;
    bit<16> mixed;
    bit<8> count;
}

bit<8> inc(in bit<8> x) {
    return x + 1;
}

void bump(inout bit<8> c, in bit<8> by) {
    c = c + by;
}

bit<16> mix(in bit<8> a, in bit<8> b) {
    bit<16> t = a ++ b;
    t = t ^ 16w0x0f0f;
    return t;
}

bit<8> twice_inc(in bit<8> x) {
    return inc(inc(x));
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.pf);
        meta.m = inc(hdr.pf.k);
        meta.mixed = mix(hdr.pf.a, hdr.pf.b);
        bump(meta.count, 3);
        transition select(twice_inc(hdr.pf.k)) {
            8w3: with_opt;
            default: accept;
        }
    }
    state with_opt {
        pkt.extract(hdr.opt);
        if (hdr.opt.v == 0) {
            bump(meta.count, inc(hdr.opt.v));
        } else {
            bump(meta.count, hdr.opt.v);
        }
        meta.m = twice_inc(meta.m);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.pf.r1 = meta.m;
        hdr.pf.r2 = meta.mixed;
        hdr.pf.r3 = meta.count;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.pf);
        pkt.emit(hdr.opt);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
