/* table_entries_defaults.p4 -- table entries with priorities and default actions.
 * Tests: ternary initial entries with explicit `priority = N` (largest wins, the default;
 * p4c refuses priorities on const entries), const entries without one (numbered by
 * position, first is highest), a non-const
 * default_action that the STF replaces with `setdefault`, a `const default_action`,
 * an action with a control-plane parameter used as a default with arguments.
 * Packet: Ethernet (0x88B5) + in_t {k} + res_t {prio_r, def_r, const_r}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header in_t {
    bit<8> k;
}

header res_t {
    bit<8> prio_r;
    bit<8> def_r;
    bit<8> const_r;
}

struct headers_t {
    ethernet_t ethernet;
    in_t       inp;
    res_t      res;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.inp);
        pkt.extract(hdr.res);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_prio(bit<8> v)  { hdr.res.prio_r = v; }
    action set_def(bit<8> v)   { hdr.res.def_r = v; }
    action set_const(bit<8> v) { hdr.res.const_r = v; }

    table t_prio {
        key = { hdr.inp.k: ternary; }
        actions = { set_prio; NoAction; }
        default_action = NoAction();
        // p4c refuses priorities on `const entries`; initial (non-const) entries may carry
        // them. p4c-bm2-ss 1.2.4.8 installs them in the order listed, so they are listed
        // from the highest priority down.
        entries = {
            priority = 30: 8w0x1A &&& 8w0xFF: set_prio(8w2);   // exactly 0x1A: wins over 10
            priority = 20: 8w0x20 &&& 8w0xF0: set_prio(8w3);   // high nibble 2
            priority = 10: 8w0x0A &&& 8w0x0F: set_prio(8w1);   // low nibble A
        }
    }
    table t_order {
        key = { hdr.inp.k: ternary; }
        actions = { set_def; NoAction; }
        default_action = set_def(8w0x55);          // not const: the control plane may change it
        const entries = {
            8w0x2A &&& 8w0xFF: set_def(8w0x0B);    // first listed = highest priority
            8w0x20 &&& 8w0xF0: set_def(8w0x0C);
        }
    }
    table t_const {
        key = { hdr.inp.k: exact; }
        actions = { set_const; }
        const default_action = set_const(8w0x77);
        size = 16;
    }

    apply {
        std.egress_spec = 1;
        t_prio.apply();
        t_order.apply();
        t_const.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.inp);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
