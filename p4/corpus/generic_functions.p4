/* generic_functions.p4 -- functions with type parameters.
 * A generic function is specialised per call: its type parameters are given as type
 * arguments (pick<bit<8>>(...)) or inferred from the arguments written for parameters of
 * that type (pick(c, 16w1, x)); its locals, out/inout copies and return value take those
 * types. Tests: pick on bit<8> (type argument) and bit<16> (inferred); swap of two bit<16>
 * fields and of two headers (inout T, a local T); a generic function calling another;
 * a type parameter named as a global typedef (W) hiding it inside the function only.
 * Packet: eth_t, a_t {x, y, z}, p_t q, p_t r, payload.
 */
#include <core.p4>
#include <v1model.p4>

typedef bit<4> W;

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header a_t {
    bit<8>  x;
    bit<16> y;
    bit<16> z;
}

header p_t {
    bit<8> v;
}

struct headers_t {
    eth_t eth;
    a_t   a;
    p_t   q;
    p_t   r;
}

struct meta_t { }

T pick<T>(in bool c, in T a, in T b) {
    if (c) {
        return a;
    }
    return b;
}

void swap<T>(inout T a, inout T b) {
    T t = a;
    a = b;
    b = t;
}

T first<T>(in T a, in T b) {
    return pick(true, a, b);
}

W widest<W>(in W a) {
    W copy = a;
    return copy;
}

parser P(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.eth);
        pkt.extract(h.a);
        pkt.extract(h.q);
        pkt.extract(h.r);
        transition accept;
    }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        h.a.x = pick<bit<8>>(h.a.x > 5, h.a.x, 8w0xEE);
        h.a.y = pick(h.a.y == 0, 16w0xBEEF, h.a.y);
        if (h.eth.type == 0x0801) {
            swap(h.a.y, h.a.z);
            swap(h.q, h.r);
        }
        if (h.eth.type == 0x0802) {
            h.q.v = first(h.r.v, h.q.v);
            h.a.z = widest(h.a.z);
            W low = (W)h.a.x;
            h.r.v = (bit<8>)low;
        }
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers_t h, inout meta_t m) { apply { } }

control D(packet_out pkt, in headers_t h) {
    apply {
        pkt.emit(h.eth);
        pkt.emit(h.a);
        pkt.emit(h.q);
        pkt.emit(h.r);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
