/* lookahead_header.p4 -- `pkt.lookahead<H>()` of a header type.
 * Tests: a field of the looked-ahead header as a select key, inside an arithmetic
 * expression (the run-time length of a varbit extract, as IPv4 options from ihl), a signed
 * field copied into metadata, and a whole header assigned from lookahead (valid, emitted);
 * lookahead consumes nothing: the same bytes are extracted after it.
 * Packet: Ethernet (0x88B5) + opts_t {ver, len (bytes), delta (int<8>), data (len-2 bytes)}.
 * Ingress inserts res_t {kind: 1 when opts was parsed, sign: 1 when delta < 0} and adds 1
 * to the copy's delta; only ver 4 is parsed.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header peek_t {
    bit<4> ver;
    bit<4> len;
    int<8> delta;
}

header opts_t {
    bit<4>     ver;
    bit<4>     len;
    int<8>     delta;
    varbit<64> data;
}

header res_t {
    bit<8> kind;
    bit<8> sign;
}

struct headers_t {
    ethernet_t ethernet;
    res_t      res;
    peek_t     copy;
    opts_t     opts;
}

struct meta_t {
    int<8> delta;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(pkt.lookahead<peek_t>().ver) {
            4: parse_opts;
            default: accept;
        }
    }
    state parse_opts {
        hdr.copy = pkt.lookahead<peek_t>();
        meta.delta = pkt.lookahead<peek_t>().delta;
        pkt.extract(hdr.opts, (bit<32>)(8 * ((bit<9>)pkt.lookahead<peek_t>().len - 2)));
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.res.setValid();
        hdr.res.kind = 0;
        hdr.res.sign = 0;
        if (hdr.opts.isValid()) {
            hdr.res.kind = 1;
        }
        if (meta.delta < 0) {
            hdr.res.sign = 1;
        }
        if (hdr.copy.isValid()) {
            hdr.copy.delta = hdr.copy.delta + 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.res);
        pkt.emit(hdr.copy);
        pkt.emit(hdr.opts);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
