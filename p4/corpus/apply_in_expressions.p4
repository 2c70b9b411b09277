/* apply_in_expressions.p4 -- table applies nested inside expressions.
 * Tests: `bool b = t.apply().hit;`, `t.apply().hit` on the right of && (applied only when
 * the left is true), `!t.apply().miss` on the right of || (applied only when the left is
 * false), `t.apply().hit ? a : b`, `.miss` as an action argument, `.hit` on the left of &&.
 * Packet: Ethernet (0x88B5) + probe_t {key, flags, hits, misses, result, x}.
 * Each table tN records in `hits` (an entry matched) or `misses` (its default ran) the bit
 * 1 << (N-1), so a table that was not applied leaves both clear.
 * result bits: 0x01 t1 hit, 0x02 flags.0 && t2 hit, 0x04 flags.1 || !t3 miss,
 *              0x10 t5 missed (through an action's bool argument), 0x20 t6 hit && key != 0.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header probe_t {
    bit<8> key;
    bit<8> flags;
    bit<8> hits;
    bit<8> misses;
    bit<8> result;
    bit<8> x;
}

struct headers_t {
    ethernet_t ethernet;
    probe_t    probe;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.probe);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action note_hit(bit<8> m) { hdr.probe.hits = hdr.probe.hits | m; }
    action note_miss(bit<8> m) { hdr.probe.misses = hdr.probe.misses | m; }
    action record(in bool missed) {
        if (missed) {
            hdr.probe.result = hdr.probe.result | 8w0x10;
        }
    }

    table t1 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x01); }
    table t2 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x02); }
    table t3 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x04); }
    table t4 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x08); }
    table t5 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x10); }
    table t6 { key = { hdr.probe.key: exact; } actions = { note_hit; note_miss; }
               default_action = note_miss(8w0x20); }

    apply {
        std.egress_spec = 1;
        bool h1 = t1.apply().hit;
        if (h1) {
            hdr.probe.result = hdr.probe.result | 8w0x01;
        }
        if (hdr.probe.flags[0:0] == 1w1 && t2.apply().hit) {
            hdr.probe.result = hdr.probe.result | 8w0x02;
        }
        if (hdr.probe.flags[1:1] == 1w1 || !t3.apply().miss) {
            hdr.probe.result = hdr.probe.result | 8w0x04;
        }
        hdr.probe.x = t4.apply().hit ? 8w0xAA : 8w0x55;
        record(t5.apply().miss);
        bool both = t6.apply().hit && hdr.probe.key != 8w0;
        if (both) {
            hdr.probe.result = hdr.probe.result | 8w0x20;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.probe);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
