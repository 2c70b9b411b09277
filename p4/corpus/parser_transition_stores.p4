/* parser_transition_stores.p4 -- stores a later parser state overwrites.
 * p4c's def-use analysis follows transitions: a store that is its state's last access to
 * a field is dropped when every state the transition may go to overwrites the field before
 * reading it. A packet too short for the next state's extract shows it: the field is as
 * before the parser (0), not the dropped value. accept, reject and a select without a
 * default (or _) case count as reads. Tests (by eth.type): 1, c1 -> c2; 2, d1 -> d3, d3 with
 * a second caller; 3, e1's select has no default: its store stays; 4, f1 -> f2, with an
 * unreachable state going to f2 too; 5, a verify after g1's store does not keep it
 * (neither does a too-short extract); 6, a select of (_, _) cases only: p4c adds a
 * no-match case going to reject, which reads y, so k1's store stays.
 * Packet: eth_t, a_t (type 3), b_t, payload. Out: o_t {y, z, w, err} after eth.
 */
#include <core.p4>
#include <v1model.p4>

error { Bad }

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header a_t {
    bit<8> v;
}

header b_t {
    bit<16> w;
}

header o_t {
    bit<8> y;
    bit<8> z;
    bit<8> w;
    bit<8> err;
}

struct headers_t {
    eth_t eth;
    o_t   o;
    a_t   a;
    b_t   b;
}

struct meta_t {
    bit<8> y;
    bit<8> z;
    bit<8> w;
}

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) {
            1: c1;
            2: d1;
            0x12: d2;
            3: e1;
            4: f1;
            5: g1;
            6: k1;
            default: accept;
        }
    }
    state c1 {
        m.y = 1;
        transition c2;
    }
    state c2 {
        pkt.extract(h.b);
        m.y = 2;
        transition accept;
    }
    state d1 {
        m.y = 3;
        transition d3;
    }
    state d2 {
        transition d3;
    }
    state d3 {
        pkt.extract(h.b);
        m.y = 4;
        transition accept;
    }
    state e1 {
        pkt.extract(h.a);
        m.z = 5;
        transition select(h.a.v) {
            1: e2;
            2: e2;
        }
    }
    state e2 {
        pkt.extract(h.b);
        m.z = 6;
        transition accept;
    }
    state f1 {
        m.w = 7;
        transition f2;
    }
    state g1 {
        pkt.extract(h.a);
        m.w = 9;
        verify(h.a.v != 0, error.Bad);
        transition g2;
    }
    state g2 {
        pkt.extract(h.b);
        m.w = 10;
        transition accept;
    }
    state k1 {
        m.y = 11;
        transition select(h.eth.type, h.eth.type) {
            (_, _): k2;
        }
    }
    state k2 {
        pkt.extract(h.b);
        m.y = 12;
        transition accept;
    }
    state unused {
        transition f2;
    }
    state f2 {
        pkt.extract(h.b);
        m.w = 8;
        transition accept;
    }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        h.o.setValid();
        h.o.y = m.y;
        h.o.z = m.z;
        h.o.w = m.w;
        h.o.err = 0;
        if (sm.parser_error == error.PacketTooShort) {
            h.o.err = 1;
        } else if (sm.parser_error == error.NoMatch) {
            h.o.err = 2;
        } else if (sm.parser_error == error.Bad) {
            h.o.err = 3;
        }
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t h, inout meta_t m) { apply { } }

control D(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.o);
        pkt.emit(h.a);
        pkt.emit(h.b);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
