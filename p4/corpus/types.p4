/* types.p4 -- declarations and types.
 * Tests: struct, typedef, `type` (new type with casts), plain enum, serializable enum
 * (enum bit<8>) used as a header field and as an exact table key (const entries),
 * bool locals, constants and constant folding, a struct assigned from a list expression,
 * match_kind use (exact), bit<W> fields.
 * Packet: Ethernet (0x88B5) + calc_t {op, a, b, result, flags, folded}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

typedef bit<16> word_t;
type bit<16> cookie_t;

enum bit<8> Op_t {
    ADD = 1,
    SUB = 2,
    XOR = 3
}

enum Color_t { Red, Green, Blue }

const word_t BASE = 16w100;
const word_t FOLDED = BASE * 3 + (16w1 << 4) - 16w0x0c;   // 300 + 16 - 12 = 304 = 0x0130
const bool   STRICT = (FOLDED > 16w200) && !(BASE == 16w0);   // true

header calc_t {
    Op_t    op;
    word_t  a;
    word_t  b;
    word_t  result;
    bit<8>  flags;
    word_t  folded;
}

struct pair_t {
    word_t first;
    word_t second;
}

struct headers_t {
    ethernet_t ethernet;
    calc_t     calc;
}

struct meta_t {
    pair_t   pair;
    cookie_t cookie;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.calc);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action do_add() { hdr.calc.result = meta.pair.first + meta.pair.second; }
    action do_sub() { hdr.calc.result = meta.pair.first - meta.pair.second; }
    action do_xor() { hdr.calc.result = meta.pair.first ^ meta.pair.second; }
    action unknown() { hdr.calc.result = 16w0xFFFF; }

    table ops {
        key = { hdr.calc.op: exact; }
        actions = { do_add; do_sub; do_xor; unknown; }
        const default_action = unknown();
        const entries = {
            Op_t.ADD: do_add();
            Op_t.SUB: do_sub();
            Op_t.XOR: do_xor();
        }
    }

    apply {
        std.egress_spec = 1;
        meta.pair = { hdr.calc.a, hdr.calc.b };        // list expression -> struct
        ops.apply();

        Color_t color = Color_t.Red;
        if (hdr.calc.a == hdr.calc.b) {
            color = Color_t.Green;
        } else if (hdr.calc.a > hdr.calc.b) {
            color = Color_t.Blue;
        }
        bool is_sub = hdr.calc.op == Op_t.SUB;
        bit<8> f = 0;
        if (color == Color_t.Green) { f = 8w0x01; }
        if (color == Color_t.Blue)  { f = 8w0x02; }
        if (is_sub)                 { f = f | 8w0x10; }
        if (STRICT)                 { f = f | 8w0x80; }
        hdr.calc.flags = f;

        meta.cookie = (cookie_t)hdr.calc.a;             // bit<16> -> type
        hdr.calc.folded = FOLDED + ((word_t)meta.cookie & 16w0);   // type -> bit<16>
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.calc);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
