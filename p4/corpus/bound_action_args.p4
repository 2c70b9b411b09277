/* bound_action_args.p4 -- one action listed in several tables, its out/inout parameters
 * bound to different fields in each actions list (p4c emits one BMv2 action per binding).
 * Tests: each table writes its own bound field, with control-plane data (STF add) and
 * with a const entry; an inout binding read and written; a bound default action with
 * data. (No direct call of a bound action here: p4c names that copy like the others, and
 * simple_switch_CLI then resolves the name to it, with no parameters.)
 * Packet: Ethernet (0x88B5) + bind_t {k, a, b, c, d}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header bind_t {
    bit<8> k;
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    ethernet_t ethernet;
    bind_t     bind;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.bind);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action put(out bit<8> dst, bit<8> v) {
        dst = v;
    }
    action bump(inout bit<8> dst, bit<8> by) {
        dst = dst + by;
    }
    action skip() { }
    table t_a {
        key = { hdr.bind.k: exact; }
        actions = { put(hdr.bind.a); skip; }
        default_action = skip();
    }
    table t_b {
        key = { hdr.bind.k: exact; }
        actions = { put(hdr.bind.b); skip; }
        const entries = { 8w2: put(hdr.bind.b, 8w0xb2); }
        default_action = skip();
    }
    table t_c {
        key = { hdr.bind.k: exact; }
        actions = { bump(hdr.bind.c); put(hdr.bind.c); }
        default_action = bump(hdr.bind.c, 8w1);
    }
    table t_d {
        key = { hdr.bind.k: exact; }
        actions = { bump(hdr.bind.d); skip; }
        default_action = skip();
    }
    apply {
        std.egress_spec = 1;
        t_a.apply();
        t_b.apply();
        t_c.apply();
        t_d.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.bind);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
