/* short_circuit.p4 -- side effects on the right of && / || / ?: run only when reached.
 * Tests: `a && f(x)` and `a || f(x)` where f changes its inout argument (f runs only when
 * the left operand does not decide), `c ? g(x) : 8w7` (g runs only when c holds), a
 * short-circuited local `bool b = ... && f(x)`, the same inside an action, and `?:` whose
 * arms are an untyped int literal and a bit<8> field.
 * Packet: Ethernet (0x88B5) + sc_t {a, c1, c2, c3, c4, c5, res, x, y}: cN count the calls
 * made for each expression; res bits 0x01 (&&), 0x02 (||), 0x08 (local), 0x10 (action).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header sc_t {
    bit<8> a;
    bit<8> c1;
    bit<8> c2;
    bit<8> c3;
    bit<8> c4;
    bit<8> c5;
    bit<8> res;
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    ethernet_t ethernet;
    sc_t       sc;
}

struct meta_t { }

bool touch(inout bit<8> c, in bool v) {
    c = c + 8w1;
    return v;
}

bit<8> bump(inout bit<8> c) {
    c = c + 8w1;
    return c;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.sc);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action in_action() {
        if (hdr.sc.a == 8w1 && touch(hdr.sc.c5, true)) {
            hdr.sc.res = hdr.sc.res | 8w0x10;
        }
    }

    apply {
        std.egress_spec = 1;
        if (hdr.sc.a == 8w1 && touch(hdr.sc.c1, true)) {
            hdr.sc.res = hdr.sc.res | 8w0x01;
        }
        if (hdr.sc.a == 8w1 || touch(hdr.sc.c2, true)) {
            hdr.sc.res = hdr.sc.res | 8w0x02;
        }
        hdr.sc.x = hdr.sc.a == 8w2 ? bump(hdr.sc.c3) : 8w7;
        bool b = hdr.sc.a == 8w3 && touch(hdr.sc.c4, true);
        if (b) {
            hdr.sc.res = hdr.sc.res | 8w0x08;
        }
        in_action();
        hdr.sc.y = hdr.sc.a == 8w1 ? 1 : hdr.sc.c1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.sc);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
