/* timestamps.p4 -- timestamps a packet sees when it is run by the STF runner.
 * simple_switch's ingress_global_timestamp, egress_global_timestamp and enq_timestamp
 * count microseconds since it started, so they are never 0; an STF run on fabemu's
 * target starts at 1 us of virtual time and a packet processed without a queue is
 * enqueued at that time (a program testing `!= 0` agrees; exact values are not compared).
 * Tests: each timestamp compared with 0, and egress's not earlier than ingress's.
 * Packet: ts_t {k, r}.
 */
#include <core.p4>
#include <v1model.p4>

header ts_t {
    bit<8> k;
    bit<8> r;
}

struct headers_t {
    ts_t ts;
}

struct meta_t {
    bit<48> t_in;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ts);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        meta.t_in = std.ingress_global_timestamp;
        if (std.ingress_global_timestamp != 0) {
            hdr.ts.r = 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (std.enq_timestamp != 0) {
            hdr.ts.r = hdr.ts.r | 2;
        }
        if (std.egress_global_timestamp != 0) {
            hdr.ts.r = hdr.ts.r | 4;
        }
        if (std.egress_global_timestamp >= meta.t_in) {
            hdr.ts.r = hdr.ts.r | 8;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.ts); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
