/* table_match_kinds.p4 -- every v1model match kind.
 * Tests: exact, lpm and ternary keys filled from the STF (LPM as don't-care nibbles, ternary
 * with priorities: the larger STF priority wins), range and optional keys with const
 * entries (optional: a value or `_`), a two-key table mixing exact and ternary, `size`.
 * Packet: Ethernet (0x88B5) + keys_t + res_t (one result byte per table).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header keys_t {
    bit<8>  e;
    bit<32> ip;
    bit<16> t;
    bit<16> r;
    bit<8>  o;
}

header res_t {
    bit<8> exact_r;
    bit<8> lpm_r;
    bit<8> tern_r;
    bit<8> range_r;
    bit<8> opt_r;
    bit<8> mixed_r;
}

struct headers_t {
    ethernet_t ethernet;
    keys_t     keys;
    res_t      res;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.keys);
        pkt.extract(hdr.res);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_exact(bit<8> v) { hdr.res.exact_r = v; }
    action set_lpm(bit<8> v)   { hdr.res.lpm_r = v; }
    action set_tern(bit<8> v)  { hdr.res.tern_r = v; }
    action set_range(bit<8> v) { hdr.res.range_r = v; }
    action set_opt(bit<8> v)   { hdr.res.opt_r = v; }
    action set_mixed(bit<8> v) { hdr.res.mixed_r = v; }

    table t_exact {
        key = { hdr.keys.e: exact; }
        actions = { set_exact; NoAction; }
        size = 64;
        default_action = NoAction();
    }
    table t_lpm {
        key = { hdr.keys.ip: lpm; }
        actions = { set_lpm; NoAction; }
        size = 1024;
        default_action = NoAction();
    }
    table t_tern {
        key = { hdr.keys.t: ternary; }
        actions = { set_tern; NoAction; }
        size = 256;
        default_action = NoAction();
    }
    table t_range {
        key = { hdr.keys.r: range; }
        actions = { set_range; NoAction; }
        default_action = NoAction();
        const entries = {
            16w0x0000 .. 16w0x00FF: set_range(8w1);
            16w0x0100 .. 16w0x01FF: set_range(8w2);
            16w0x0080 .. 16w0x0180: set_range(8w3);   // overlaps; lower priority (later)
        }
    }
    table t_opt {
        key = {
            hdr.keys.o: optional;
            hdr.keys.e: optional;
        }
        actions = { set_opt; NoAction; }
        default_action = NoAction();
        const entries = {
            (8w0x05, 8w0x01): set_opt(8w1);
            (8w0x05, _):      set_opt(8w2);
            (_, 8w0x02):      set_opt(8w3);
        }
    }
    table t_mixed {
        key = {
            hdr.keys.e: exact;
            hdr.keys.t: ternary;
        }
        actions = { set_mixed; NoAction; }
        default_action = NoAction();
    }

    apply {
        std.egress_spec = 1;
        t_exact.apply();
        t_lpm.apply();
        t_tern.apply();
        t_range.apply();
        t_opt.apply();
        t_mixed.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.keys);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
