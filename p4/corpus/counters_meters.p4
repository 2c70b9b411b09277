/* counters_meters.p4 -- counter, direct_counter, meter, direct_meter.
 * Tests: an indexed counter (packets_and_bytes) counted per ingress port, a direct_counter
 * attached to a table (`counters =`), an indexed meter (packets) with execute_meter into a
 * header field, a direct_meter<bit<8>> attached to a table (`meters =`) read in the action.
 * Meters with no rates configured return GREEN (0); the STF pins those colours and the
 * forwarding chosen by the metered table. Counter values are not visible in packets.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header color_t {
    bit<8> key;
    bit<8> indexed_color;
    bit<8> direct_color;
    bit<8> out_port;
}

struct headers_t {
    ethernet_t ethernet;
    color_t    color;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.color);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    counter(32w16, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets) fwd_counter;
    meter(32w16, MeterType.packets) port_meter;
    direct_meter<bit<8>>(MeterType.bytes) fwd_meter;

    action forward(bit<9> port) {
        std.egress_spec = port;
        fwd_meter.read(hdr.color.direct_color);
        hdr.color.out_port = (bit<8>)port;
    }
    action to_cpu() {
        std.egress_spec = 9w7;
        fwd_meter.read(hdr.color.direct_color);
        hdr.color.out_port = 8w7;
    }

    table fwd {
        key = { hdr.color.key: exact; }
        actions = { forward; to_cpu; }
        default_action = to_cpu();
        counters = fwd_counter;
        meters = fwd_meter;
    }

    apply {
        port_counter.count((bit<32>)std.ingress_port);
        port_meter.execute_meter((bit<32>)std.ingress_port, hdr.color.indexed_color);
        fwd.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.color);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
