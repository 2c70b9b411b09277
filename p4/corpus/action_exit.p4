/* action_exit.p4 -- exit inside actions.
 * Tests: `exit` in an action run by a table (statements after it are skipped, and so is
 * the rest of ingress; egress still runs), `exit` in an action called directly under an
 * `if` of the apply block, `exit` in an action of a sub-control (leaves the caller too).
 * (`exit` under an `if` inside an action is refused, by p4c-bm2-ss and by fabemu.)
 * Packet: Ethernet (0x88B5) + ctl_t {mode, res, eg}. res bits: 0x01 go, 0x02 after t,
 * 0x04 after the direct call, 0x08 quit before its exit, 0x10 sub's leave before its
 * exit, 0x40 sub's end, 0x80 end of ingress; eg = 1 when egress ran.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header ctl_t {
    bit<8> mode;
    bit<8> res;
    bit<8> eg;
}

struct headers_t {
    ethernet_t ethernet;
    ctl_t      ctl;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ctl);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control Sub(inout ctl_t ctl) {
    action leave() {
        ctl.res = ctl.res | 8w0x10;
        exit;
        ctl.res = ctl.res | 8w0x20;
    }
    apply {
        if (ctl.mode == 8w3) {
            leave();
        }
        ctl.res = ctl.res | 8w0x40;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Sub() sub;

    action stop(bit<8> v) {
        hdr.ctl.res = v;
        exit;
        hdr.ctl.res = 8w0xFF;
    }
    action go() {
        hdr.ctl.res = hdr.ctl.res | 8w0x01;
    }
    action quit() {
        hdr.ctl.res = hdr.ctl.res | 8w0x08;
        exit;
        hdr.ctl.res = hdr.ctl.res | 8w0x04;
    }
    table t {
        key = { hdr.ctl.mode: exact; }
        actions = { stop; go; }
        default_action = go();
    }

    apply {
        std.egress_spec = 1;
        t.apply();
        hdr.ctl.res = hdr.ctl.res | 8w0x02;
        if (hdr.ctl.mode == 8w2) {
            quit();
        }
        hdr.ctl.res = hdr.ctl.res | 8w0x04;
        sub.apply(hdr.ctl);
        hdr.ctl.res = hdr.ctl.res | 8w0x80;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.ctl.eg = 8w1;
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ctl);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
