/* locals_and_keys.p4 -- typed locals, run-time stack indices and keys that are expressions.
 * Tests: an enum-typed local (assigned, compared, switched on), a tuple local (swapped with
 * `t = {t[1], t[0]}`), a struct swapped with `p = {p.y, p.x}` (the right side is read
 * before any field is written), a header stack indexed by a packet field (read and write),
 * ternary const entries whose masks cover only part of the key, match keys that are a cast,
 * a sum and a concatenation (with @name), annotations with arguments.
 * Packet: Ethernet (0x88B5) + ctl_t {op, a, b, idx, res, tk, kk} + slot_t[3].
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

enum Mode { Plain, Swap, Stack }

header ctl_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
    bit<8> idx;
    bit<8> res;
    bit<8> tk;
    bit<8> kk;
}

header slot_t {
    bit<8> v;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t      ctl;
    slot_t[3]  slots;
}

struct meta_t {
    pair_t p;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.slots[0]);
        pkt.extract(hdr.slots[1]);
        pkt.extract(hdr.slots[2]);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    @fabemu_note("sets tk", 1)
    action set_tk(bit<8> v) { hdr.ctl.tk = v; }
    action set_kk(bit<8> v) { hdr.ctl.kk = v; }

    @fabemu_note("narrow masks", 2)
    table narrow {
        key = { hdr.ctl.a ++ hdr.ctl.b: ternary @name("ab"); }
        actions = { set_tk; NoAction; }
        const entries = {
            0x0100 &&& 0x0F00 : set_tk(8w1);
            0x0002 &&& 0x00FF : set_tk(8w2);
        }
        default_action = NoAction();
    }
    table expr_keys {
        key = {
            (bit<16>)hdr.ctl.a: exact @name("wide_a");
            hdr.ctl.a + hdr.ctl.b: exact @name("sum");
        }
        actions = { set_kk; NoAction; }
        default_action = NoAction();
    }

    apply {
        std.egress_spec = 1;
        @fabemu_note(3) Mode m = Mode.Plain;
        if (hdr.ctl.op == 8w1) {
            m = Mode.Swap;
        } else if (hdr.ctl.op == 8w2) {
            m = Mode.Stack;
        }
        tuple<bit<8>, bit<8>> t2 = {hdr.ctl.a, hdr.ctl.b};
        meta.p = {hdr.ctl.a, hdr.ctl.b};
        if (m == Mode.Swap) {
            t2 = {t2[1], t2[0]};
            meta.p = {meta.p.y, meta.p.x};
            hdr.ctl.a = t2[0];
            hdr.ctl.b = meta.p.y;
        }
        if (m == Mode.Stack) {
            hdr.slots[hdr.ctl.idx].v = hdr.slots[hdr.ctl.idx].v + 8w1;
            hdr.ctl.res = hdr.slots[hdr.ctl.idx].v;
        }
        switch (m) {
            Mode.Plain: { hdr.ctl.res = hdr.ctl.res | 8w0x80; }
            default: { }
        }
        narrow.apply();
        expr_keys.apply();
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
        pkt.emit(hdr.slots);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
