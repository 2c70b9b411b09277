/* switch_and_entries.p4 -- switch labels after default, entry priorities p4c computes,
 * and @name on an action parameter.
 * A switch on a value is a table for p4c: its default is the table's default action, so a
 * label written after `default` still matches (p4c only warns), a label sharing the
 * default's body goes there, and a label at the end with no body is dropped (p4c warns
 * "fallthrough with no statement"): it goes to the default too. An entry without a priority after one with a priority takes
 * the one before it less 1 (p4c 1.2.4.8 ignores priority_delta), and BMv2 tries entries in
 * listing order. `@name("val")` renames an action parameter for the control plane.
 * Tests: x picks the switch case (y); t's entries on x write z; u (added by the STF,
 * key x = 7) writes b.p through the parameter the control plane calls val.
 * Packet: eth_t, a_t {x, y, z}, b_t {p}, payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header a_t {
    bit<8> x;
    bit<8> y;
    bit<8> z;
}

header b_t {
    bit<8> p;
}

struct headers_t {
    eth_t eth;
    a_t   a;
    b_t   b;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.a);
        pkt.extract(h.b);
        transition accept;
    }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    action set_z(bit<8> v) { h.a.z = v; }
    action set_p(@name("val") bit<8> v) { h.b.p = v; }
    action nop() { }

    table t {
        key = { h.a.x : ternary; }
        actions = { set_z; nop; }
        default_action = nop();
        priority_delta = 5;
        entries = {
            priority = 100: 8w0x07 &&& 8w0x0F : set_z(1);
            8w0x03 &&& 8w0x03 : set_z(2);
            _ : set_z(3);
        }
    }

    table u {
        key = { h.a.x : exact; }
        actions = { set_p; nop; }
        default_action = nop();
    }

    apply {
        sm.egress_spec = 1;
        switch (h.a.x) {
            2: default: { h.a.y = 0x22; }
            7: { h.a.y = 0x77; }
            3: { h.a.y = 0x33; }
            4:
        }
        t.apply();
        u.apply();
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t h, inout meta_t m) { apply { } }

control D(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.a);
        pkt.emit(h.b);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
