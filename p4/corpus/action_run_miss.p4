/* action_run_miss.p4 -- a table with neither a default action nor NoAction misses with
 * NoAction (as p4c adds it), so a switch on action_run takes none of the listed cases.
 * Tests: a miss skips the case that exits and the statements after the switch run; a hit
 * runs the case, whose exit skips them; a case that returns; an action that exits, listed
 * in a table that misses.
 * Packet: Ethernet (0x88B5) + run_t {k, x, y, z}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header run_t {
    bit<8> k;
    bit<8> x;
    bit<8> y;
    bit<8> z;
}

struct headers_t {
    ethernet_t ethernet;
    run_t      run;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.run);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control Tail(inout run_t r) {
    action mark() { }
    table t_ret {
        key = { r.k: exact; }
        actions = { mark; }
        const entries = { 8w2: mark(); }
    }
    apply {
        switch (t_ret.apply().action_run) {
            mark: {
                r.z = 8w0x22;
                return;
            }
        }
        r.z = 8w0x33;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    Tail() tail;
    action hit_it() { }
    action leave() {
        exit;
    }
    table t_exit {
        key = { hdr.run.k: exact; }
        actions = { hit_it; }
        const entries = { 8w1: hit_it(); }
    }
    table t_never {
        key = { hdr.run.k: exact; }
        actions = { leave; }
    }

    apply {
        std.egress_spec = 1;
        tail.apply(hdr.run);
        switch (t_exit.apply().action_run) {
            hit_it: {
                hdr.run.x = 8w0x11;
                exit;
            }
        }
        switch (t_never.apply().action_run) {
            leave: {
                hdr.run.x = 8w0x44;
            }
        }
        hdr.run.y = 8w0x55;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.run);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
