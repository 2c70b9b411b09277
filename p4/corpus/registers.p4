/* registers.p4 -- register read and write, visible in the packet.
 * Tests: register<bit<32>> indexed by a header field (per-flow packet counter: read, add,
 * write, and the value read copied into the packet), a second register<bit<16>> written
 * from one packet and read by a later one, out-of-range index handling is avoided.
 * Packet: Ethernet (0x88B5) + reg_t {flow, count, stash_in, stash_out}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header reg_t {
    bit<8>  flow;
    bit<32> count;
    bit<16> stash_in;
    bit<16> stash_out;
}

struct headers_t {
    ethernet_t ethernet;
    reg_t      reg;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.reg);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>>(32w8) flow_packets;
    register<bit<16>>(32w1) stash;

    action count_flow() {
        bit<32> index = (bit<32>)hdr.reg.flow[2:0];
        bit<32> n;
        flow_packets.read(n, index);
        n = n + 1;
        flow_packets.write(index, n);
        hdr.reg.count = n;
    }

    apply {
        std.egress_spec = 1;
        count_flow();
        bit<16> old;
        stash.read(old, 32w0);
        hdr.reg.stash_out = old;
        if (hdr.reg.stash_in != 16w0) {
            stash.write(32w0, hdr.reg.stash_in);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.reg);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
