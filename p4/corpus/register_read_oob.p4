/* register_read_oob.p4 -- a register read past the array's end.
 * BMv2's register_read leaves its destination as it was when the index is past the end,
 * so a header field keeps its value. A local's earlier store is not there to keep: p4c's
 * dead-store pass drops `bit<8> x = 7;` (and `y = h.a.w`) because the read overwrites the
 * local before anything reads it, so the local reads 0 (locals are zeroed per packet).
 * Tests: an action reading with an index from table data (3 in range, 9 past the end of
 * rg's 8 cells); a direct read into a field with the packet's index; two locals.
 * Packet: eth_t, a_t {k, i, v, w, x, y}, payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header a_t {
    bit<8> k;  // table key: which entry's index the action reads with
    bit<8> i;  // index of the direct reads
    bit<8> v;  // read by the action
    bit<8> w;  // read directly
    bit<8> x;  // a local initialised to 7, then read into
    bit<8> y;  // a local initialised from w, then read into
}

struct headers_t {
    eth_t eth;
    a_t   a;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.a);
        transition accept;
    }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<8>>(8) rg;

    action rd(bit<32> idx) {
        rg.read(h.a.v, idx);
        rg.write(idx, h.a.k + 0x10);
    }

    table t {
        key = { h.a.k : exact; }
        actions = { rd; NoAction; }
        const entries = {
            1 : rd(3);
            2 : rd(9);
        }
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        t.apply();
        rg.read(h.a.w, (bit<32>)h.a.i);
        bit<8> x = 7;
        rg.read(x, (bit<32>)h.a.i);
        h.a.x = x;
        bit<8> y = h.a.w;
        rg.read(y, (bit<32>)h.a.i);
        h.a.y = y;
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t h, inout meta_t m) { apply { } }

control D(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.a);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
