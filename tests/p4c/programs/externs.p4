/* v1model externs: hash, register, counters, meters (direct too), digest, clone, checksums. */
#include "common.p4"

SIMPLE_PARSER

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

struct learn_t {
    bit<48> mac;
    bit<9>  port;
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>>(64) regs;
    counter(32w16, CounterType.packets) pkts;
    meter(32w8, MeterType.bytes) rate;
    direct_counter(CounterType.packets_and_bytes) tcount;
    direct_meter<bit<8>>(MeterType.packets) tmeter;

    action hit() {
        tcount.count();
        tmeter.read(meta.color);
    }
    table t {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { hit; NoAction; }
        counters = tcount;
        meters = tmeter;
        default_action = NoAction();
    }
    apply {
        hash(meta.sel, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol }, 32w8);
        regs.read(meta.r, 32w3);
        regs.write(32w4, meta.r + 32w1);
        pkts.count(32w1);
        rate.execute_meter(32w2, meta.color);
        random(meta.r, 32w0, 32w100);
        digest<learn_t>(32w1, { hdr.ethernet.srcAddr, std.ingress_port });
        clone_preserving_field_list(CloneType.I2E, 32w5, 8w1);
        log_msg("sel={}", { meta.sel });
        assert(meta.sel < 16w8);
        truncate(32w64);
        t.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        if (std.instance_type == 32w0) {
            recirculate_preserving_field_list(8w1);
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.tcp.isValid(),
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol },
            hdr.tcp.seq, HashAlgorithm.csum16);
    }
}

SIMPLE_DEPARSER
MAIN
