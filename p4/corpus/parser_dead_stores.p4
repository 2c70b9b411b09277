/* parser_dead_stores.p4 -- stores a parser state overwrites later, when the state stops
 * in between. p4c drops an assignment that a later one in the same state overwrites with
 * nothing reading it in between (updates of the field from itself go with it); when an
 * extract runs past the end of the packet or a verify fails between the two, the field
 * keeps the value it had before the state.
 * Tests: a header field and a metadata field overwritten after a too-short extract, one
 * after a failing verify, a store read by another assignment (kept), a chain of updates
 * (st3 = 7; st3 = st3 + 1) overwritten after a second extract.
 * Packet: eth_t, then h_t {a(16)} when long enough; out: o_t {e, st, st2, st3, et(16)}.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header h_t {
    bit<16> a;
}

header o_t {
    bit<8> e;
    bit<8> st;
    bit<8> st2;
    bit<8> st3;
    bit<16> et;
}

struct headers_t {
    eth_t eth;
    h_t h;
    o_t o;
}

struct meta_t {
    bit<8> st;
    bit<8> st2;
    bit<8> st3;
    bit<8> cp;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x0001: header_store;
            0x0003: after_verify;
            0x0004: kept_and_chained;
            default: accept;
        }
    }
    state header_store {
        hdr.eth.type = 5;
        pkt.extract(hdr.h);
        hdr.eth.type = 6;
        transition accept;
    }
    state after_verify {
        meta.st = 3;
        verify(hdr.eth.dst == 1, error.NoMatch);
        meta.st = 4;
        transition accept;
    }
    state kept_and_chained {
        meta.st2 = 3;
        meta.cp = meta.st2;
        pkt.extract(hdr.h);
        meta.st2 = 4;
        meta.st3 = 7;
        meta.st3 = meta.st3 + 1;
        pkt.extract(hdr.h);
        meta.st3 = 9;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.o.setValid();
        hdr.o.e = (bit<8>)(bit<1>)(std.parser_error != error.NoError);
        hdr.o.st = meta.st;
        hdr.o.st2 = meta.st2;
        hdr.o.st3 = meta.st3 + meta.cp;
        hdr.o.et = hdr.eth.type;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.h);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
