/* lpm_odd_width.p4 -- lpm keys whose width is not whole bytes. BMv2 keeps a key as whole
 * bytes, the value right-aligned, and counts an lpm prefix from the top bit of the first
 * byte: for a 12-bit key the first 4 bits of the prefix cover zero padding. So `0x800/1`
 * matches every 12-bit value, and `0xab0/8` (p4c writes `0xab0 &&& 0xff0` so) matches the
 * values whose padded top byte is 0x0a. fabemu's target counts prefixes the same way.
 * Tests: const entries (prefix lengths as p4c writes them, over the field), entries added
 * by the STF with a prefix (over the padded key), with nibble wildcards and a full value.
 * Packet: lw_t {p (12 bits), pad (4), q (12 bits), pad2 (4), r1, r2}.
 */
#include <core.p4>
#include <v1model.p4>

header lw_t {
    bit<12> p;
    bit<4> pad;
    bit<12> q;
    bit<4> pad2;
    bit<8> r1;
    bit<8> r2;
}

struct headers_t {
    lw_t lw;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.lw);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_r1(bit<8> v) {
        hdr.lw.r1 = v;
    }

    action set_r2(bit<8> v) {
        hdr.lw.r2 = v;
    }

    table t_const {
        key = { hdr.lw.p: lpm; }
        actions = { set_r1; NoAction; }
        default_action = set_r1(0xdd);
        const entries = {
            0xab0 &&& 0xff0 : set_r1(7);
            0x800 &&& 0x800 : set_r1(9);
        }
    }

    table t_cli {
        key = { hdr.lw.q: lpm; }
        actions = { set_r2; NoAction; }
        default_action = set_r2(0xee);
    }

    apply {
        std.egress_spec = 1;
        t_const.apply();
        t_cli.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.lw); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
