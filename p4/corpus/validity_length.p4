/* validity_length.p4 -- what a change of validity does, as simple_switch does it.
 * Tests: setValid() on an invalid header zeroes its fields (values extracted earlier and
 * values written while it was invalid are gone); setValid() on a valid header keeps them;
 * egress's packet_length counts the bytes of headers made valid (+) or invalid (-) in
 * ingress (BMv2's packet-length register), while ingress's stays the frame's length;
 * truncate() keeps the smallest length asked for, in ingress or egress, 0 included.
 * Packet: Ethernet (0x88B5) + ctl_t {op, il, el} + opt_t {a, b} (opt_t always parsed).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header ctl_t {
    bit<8> op;
    bit<8> il;  /* ingress packet_length, written by ingress */
    bit<8> el;  /* egress packet_length, written by egress */
}

header opt_t {
    bit<8>  a;
    bit<16> b;
}

header tag_t {
    bit<16> t;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t      ctl;
    opt_t      opt;
    tag_t      tag;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.opt);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.ctl.il = (bit<8>)std.packet_length;
        if (hdr.ctl.op == 1) {          /* invalid, written, valid again: zeroed */
            hdr.opt.setInvalid();
            hdr.opt.a = 8w0x77;
            hdr.opt.setValid();
        } else if (hdr.ctl.op == 2) {   /* valid already: kept; tag added: +2 bytes */
            hdr.opt.setValid();
            hdr.tag.setValid();
            hdr.tag.t = 16w0xbeef;
        } else if (hdr.ctl.op == 3) {   /* opt removed: -3 bytes */
            hdr.opt.setInvalid();
        } else if (hdr.ctl.op == 4) {   /* truncate to 17, later 20 in egress: 17 */
            truncate(32w17);
        } else if (hdr.ctl.op == 5) {   /* truncate to 0: an empty frame */
            truncate(32w0);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.ctl.el = (bit<8>)std.packet_length;
        if (hdr.ctl.op == 4) {
            truncate(32w20);
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.tag);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
