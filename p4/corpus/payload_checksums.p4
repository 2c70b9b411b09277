/* payload_checksums.p4 -- what the payload of *_checksum_with_payload is.
 * BMv2 verifies checksums after parsing and updates them before the deparser puts the
 * headers back, so the payload is the bytes the parser left: a header parsed after the
 * checksummed one (t) and a header ingress adds (u) are not in it.
 * Tests: verify_checksum_with_payload over {c.a} + payload (ingress copies
 * checksum_error into c.err); update_checksum_with_payload over the same when c.err is 0;
 * by eth.type 0x88b6 t is parsed (payload: what follows t), else not (t's bytes are
 * payload); eth.dst 2 adds u after t.
 * Packet: eth_t, c_t {a, csum, err}, [t_t {x}], payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header c_t {
    bit<16> a;
    bit<16> csum;
    bit<8>  err;
}

header t_t {
    bit<16> x;
}

struct headers_t {
    eth_t eth;
    c_t c;
    t_t t;
    t_t u;
}

struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.c);
        transition select(hdr.eth.type) {
            0x88b6: parse_t;
            default: accept;
        }
    }
    state parse_t {
        pkt.extract(hdr.t);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum_with_payload(hdr.c.isValid(), { hdr.c.a }, hdr.c.csum,
                                     HashAlgorithm.csum16);
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.c.err = (bit<8>)std.checksum_error;
        if (hdr.eth.dst == 2) {
            hdr.u.setValid();
            hdr.u.x = 0x5678;
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum_with_payload(hdr.c.err == 0, { hdr.c.a }, hdr.c.csum,
                                     HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.c);
        pkt.emit(hdr.t);
        pkt.emit(hdr.u);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
