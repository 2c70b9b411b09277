/* hashes.p4 -- the v1model hash() extern and random().
 * Tests: hash with crc16, crc32 (base 7, max 1000: base + h % max), crc16_custom (default
 * parameters = crc16), identity, csum16, xor16 over field lists (list expressions, incl. a
 * list whose width is not a multiple of 8 bits), the `random` algorithm (compile-only: built
 * with -DWITH_RANDOM_HASH; `*` in the STF), and random(r, lo, hi) (lo == hi pins the value;
 * a range is checked).
 * Packet: Ethernet + IPv4 + hash_t (results, emitted after IPv4).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header hash_t {
    bit<16> h_crc16;
    bit<32> h_crc32;
    bit<16> h_crc16c;
    bit<16> h_ident;
    bit<16> h_csum;
    bit<16> h_xor;
    bit<16> h_odd;
    bit<16> h_rand;
    bit<8>  r_fixed;
    bit<8>  r_in_range;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    hash_t     h;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        hdr.h.setValid();
        hash(hdr.h.h_crc16, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol }, 32w65536);
        hash(hdr.h.h_crc32, HashAlgorithm.crc32, 32w7,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, 32w1000);
        hash(hdr.h.h_crc16c, HashAlgorithm.crc16_custom, 16w0,
             { hdr.ipv4.dstAddr }, 32w65536);
        hash(hdr.h.h_ident, HashAlgorithm.identity, 16w0,
             { hdr.ipv4.ttl, hdr.ipv4.protocol }, 32w65536);
        hash(hdr.h.h_csum, HashAlgorithm.csum16, 16w0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, 32w65536);
        hash(hdr.h.h_xor, HashAlgorithm.xor16, 16w0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr }, 32w65536);
        hash(hdr.h.h_odd, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.flags, hdr.ipv4.ttl }, 32w65536);      // 11 bits, padded to 2 bytes
#ifdef WITH_RANDOM_HASH
        // compile-only: BMv2 has no `random` hash calculation to load
        hash(hdr.h.h_rand, HashAlgorithm.random, 16w0,
             { hdr.ipv4.srcAddr }, 32w65536);
#else
        hdr.h.h_rand = 16w0;
#endif
        bit<8> r;
        random(r, 8w42, 8w42);
        hdr.h.r_fixed = r;
        bit<8> q;
        random(q, 8w10, 8w20);
        hdr.h.r_in_range = (q >= 8w10 && q <= 8w20) ? 8w1 : 8w0;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
