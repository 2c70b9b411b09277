/* control_flow.p4 -- statements and actions in controls.
 * Tests: actions with directional parameters (in / out / inout) called directly, actions
 * with directionless (control-plane) parameters from table entries, local variables,
 * if / else if / else, switch (t.apply().action_run) with a default label, .hit and .miss,
 * a sub-control applied from ingress, `return` (leaves the control) and `exit` (leaves
 * ingress; egress still runs).
 * Packet: Ethernet (0x88B5) + ctl_t {key, x, y, sum, trace}. trace bits:
 *   0x01 t_first ran set_x, 0x02 ran set_y, 0x04 other action (switch default),
 *   0x08 t_second hit, 0x10 t_third miss, 0x20 reached the end of ingress,
 *   0x40 egress ran (always).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header ctl_t {
    bit<8> key;
    bit<8> x;
    bit<8> y;
    bit<8> sum;
    bit<8> trace;
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

control Summer(in bit<8> a, in bit<8> b, out bit<8> s) {
    apply {
        s = a + b;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Summer() summer;

    action add_into(inout bit<8> acc, in bit<8> delta) {
        acc = acc + delta;
    }
    action twice(in bit<8> v, out bit<8> r) {
        r = v << 1;
    }
    action set_x(bit<8> val) {
        hdr.ctl.x = val;
    }
    action set_y(bit<8> val) {
        hdr.ctl.y = val;
    }
    action nop() { }

    table t_first {
        key = { hdr.ctl.key: exact; }
        actions = { set_x; set_y; nop; }
        default_action = nop();
    }
    table t_second {
        key = { hdr.ctl.key: exact; }
        actions = { set_x; NoAction; }
        default_action = NoAction();
    }
    table t_third {
        key = { hdr.ctl.key: exact; }
        actions = { set_y; NoAction; }
        default_action = NoAction();
    }

    apply {
        bit<8> trace = 8w0;
        std.egress_spec = 1;
        switch (t_first.apply().action_run) {
            set_x: { trace = trace | 8w0x01; }
            set_y: { trace = trace | 8w0x02; }
            default: { trace = trace | 8w0x04; }
        }
        if (t_second.apply().hit) {
            trace = trace | 8w0x08;
        }
        if (t_third.apply().miss) {
            trace = trace | 8w0x10;
        }
        bit<8> s;
        summer.apply(hdr.ctl.x, hdr.ctl.y, s);
        add_into(s, 8w1);
        hdr.ctl.sum = s;
        hdr.ctl.trace = trace;
        if (hdr.ctl.key == 8w0xEE) {
            exit;
        } else if (hdr.ctl.key == 8w0xDD) {
            return;
        } else {
            bit<8> d;
            twice(hdr.ctl.sum, d);
            hdr.ctl.sum = d;
        }
        hdr.ctl.trace = hdr.ctl.trace | 8w0x20;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        hdr.ctl.trace = hdr.ctl.trace | 8w0x40;
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
