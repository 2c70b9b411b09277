/* entry_priority.p4 -- `@priority(N)` on const table entries.
 * Tests: a ternary table whose const entries carry `@priority(N)` after the action (as
 * p4c-bm2-ss, the entry's BMv2 priority is N; an entry without one gets its position from
 * 1), the smallest number winning among matching entries, whatever the listing order;
 * no match -> the default action (drop).
 * Packet: Ethernet (0x88B5) + key_t {k}; the matching entry gives the egress port.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header key_t {
    bit<16> k;
}

struct headers_t {
    ethernet_t ethernet;
    key_t      key;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.key);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_port(bit<9> port) {
        std.egress_spec = port;
    }
    action drop() {
        mark_to_drop(std);
    }
    table by_key {
        key = {
            hdr.key.k : ternary;
        }
        actions = {
            set_port;
            drop;
        }
        default_action = drop();
        const entries = {
            16w0x0001 &&& 16w0x000F : set_port(1) @priority(30);   // low nibble 1
            16w0x1181               : set_port(2);                 // priority 2 (position)
            16w0x1001 &&& 16w0xF00F : set_port(3) @priority(1);    // wins over all others
            16w0x0100 &&& 16w0x0F00 : set_port(4) @priority(10);
        }
    }
    apply {
        by_key.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.key);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
