/* Parser: tuple select with masks, ranges and _, lookahead, advance, verify, varbit, value_set. */
#include "common.p4"

error { BadVersion }

header opts_t {
    bit<8>      len;
    varbit<320> data;
}

struct phdrs_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    opts_t     opts;
}

parser MyParser(packet_in pkt, out phdrs_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    value_set<bit<4>>(4) special;
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType, pkt.lookahead<bit<8>>()) {
            (16w0x0800, 8w0x40 &&& 8w0xF0): parse_ipv4;
            (16w0x0900 .. 16w0x0902, _): skip;
            default: accept;
        }
    }
    state skip {
        pkt.advance(32);
        transition accept;
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4w4, error.BadVersion);
        transition select(hdr.ipv4.ihl) {
            4w5: accept;
            special: accept;
            default: parse_opts;
        }
    }
    state parse_opts {
        pkt.extract(hdr.opts, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 16w6) * 16w32));
        transition accept;
    }
}

control MyVerifyChecksum(inout phdrs_t hdr, inout meta_t meta) { apply { } }
control MyComputeChecksum(inout phdrs_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout phdrs_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (std.parser_error == error.BadVersion) {
            mark_to_drop(std);
        }
    }
}
control MyEgress(inout phdrs_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control MyDeparser(packet_out pkt, in phdrs_t hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.opts); }
}
MAIN
