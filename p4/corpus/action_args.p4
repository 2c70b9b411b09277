/* action_args.p4 -- action parameters are bound in the action's own scope, and a parameter
 * the action never uses is neither read nor written (as p4c does).
 * Tests: an action whose out parameter has the name of the caller's local, called with that
 * local as both the out and the in argument (the in value is read, not the parameter's
 * copy); an action ignoring its inout parameter, called with a stack element indexed by a
 * packet field that may be past the stack's end (nothing is read or written); an action
 * that writes its inout parameter and exits (the argument is written back); statements
 * after a direct call of an exiting action, in the control and in a calling action, never
 * run (BMv2 would run them if they shared the exiting action's primitives).
 * Packet: Ethernet (0x88B5) + arg_t {i, a, b, c} + slot_t[2].
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header arg_t {
    bit<8> i;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

header slot_t {
    bit<8> v;
}

struct headers_t {
    ethernet_t ethernet;
    arg_t      arg;
    slot_t[2]  slots;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.arg);
        pkt.extract(hdr.slots.next);
        pkt.extract(hdr.slots.next);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action put(out bit<8> tmp, in bit<8> val) {
        hdr.arg.a = val;
    }
    action ignore(inout bit<8> unused) { }
    action finish(inout bit<8> v) {
        v = v + 8w1;
        exit;
    }
    action stop() {
        exit;
    }
    action write_stop_write() {
        hdr.arg.a = 8w0x77;
        stop();
        hdr.arg.c = 8w0xdd;
    }

    apply {
        std.egress_spec = 1;
        bit<8> tmp = hdr.arg.b + 8w1;
        put(tmp, tmp);
        ignore(hdr.slots[hdr.arg.i].v);
        if (hdr.arg.i == 8w1) {
            write_stop_write();
            hdr.arg.b = 8w0xee;
        }
        finish(hdr.arg.c);
        hdr.arg.c = 8w0xee;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.arg);
        pkt.emit(hdr.slots);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
