/* action_writes.p4 -- table actions whose body writes the storage bound to one of their
 * directional arguments. P4's copy-in/copy-out says an `in` argument keeps its value from
 * before the action and an `inout`/`out` one is written back at the end; p4c copies such
 * arguments, and so does fabemu when the body may write their storage another way.
 * Tests: the field bound to an `in` argument written before the argument is read, an
 * `inout` argument written before its field (the copy-out wins), the field written before
 * the `inout` is read, a `pop_front` moving another element into a bound stack element, a
 * called action writing the field, and an action that writes nothing bound (no copy).
 * Packet: w_t (10 bytes), two e_t stack elements, e_t res.
 */
#include <core.p4>
#include <v1model.p4>

header w_t {
    bit<8> f1;
    bit<8> g1;
    bit<8> f2;
    bit<8> f3;
    bit<8> g3;
    bit<8> f4;
    bit<8> f6;
    bit<8> g6;
    bit<8> f7;
    bit<8> g7;
}

header e_t {
    bit<8> v;
}

struct headers_t {
    w_t w;
    e_t[2] s;
    e_t res;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.w);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.res);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    // 1: the body writes the field bound to an in argument, then reads the argument
    action a1(in bit<8> x) { hdr.w.f1 = 5; hdr.w.g1 = x; }
    // 2: the argument is written first, the field after: copy-out wins
    action a2(inout bit<8> x) { x = 1; hdr.w.f2 = 5; }
    // 3: an in argument written in the body leaves the field alone
    action a3(in bit<8> x) { hdr.w.g3 = x + 3; }
    // 4: the field written, then the inout argument read and written
    action a4(inout bit<8> x) { hdr.w.f4 = 5; x = x + 1; }
    // 5: a stack shift moves another element into the bound one
    action a5(in bit<8> x) { hdr.s.pop_front(1); hdr.res.v = x; }
    // 6: a called action writes the field
    action w6() { hdr.w.f6 = 9; }
    action a6(in bit<8> x) { w6(); hdr.w.g6 = x; }
    // 7: no write to the bound field: bound directly
    action a7(in bit<8> x) { hdr.w.g7 = x + hdr.w.f7; }
    table t1 { actions = { a1(hdr.w.f1); } default_action = a1(hdr.w.f1); }
    table t2 { actions = { a2(hdr.w.f2); } default_action = a2(hdr.w.f2); }
    table t3 { actions = { a3(hdr.w.f3); } default_action = a3(hdr.w.f3); }
    table t4 { actions = { a4(hdr.w.f4); } default_action = a4(hdr.w.f4); }
    table t5 { actions = { a5(hdr.s[0].v); } default_action = a5(hdr.s[0].v); }
    table t6 { actions = { a6(hdr.w.f6); } default_action = a6(hdr.w.f6); }
    table t7 { actions = { a7(hdr.w.f7); } default_action = a7(hdr.w.f7); }
    apply {
        std.egress_spec = 1;
        t1.apply();
        t2.apply();
        t3.apply();
        t4.apply();
        t5.apply();
        t6.apply();
        t7.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.w);
        pkt.emit(hdr.s);
        pkt.emit(hdr.res);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
