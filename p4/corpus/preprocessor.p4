/* preprocessor.p4 -- the C preprocessor subset P4 uses.
 * Tests: #include of a local header file, #define constants and function-like macros,
 * #if/#elif/#else, #ifdef/#ifndef, and a -D define: OUT_PORT (default 2 via #ifndef;
 * compile with -DOUT_PORT=5 to send to port 5) and FLIP (undefined by default).
 * Packet: Ethernet (type 0x88B5) + 4-byte payload header; the STF pins every macro result.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

#ifndef OUT_PORT
#define OUT_PORT 2
#endif

#define VERSION 3
#define MARK(x) ((x) | 8w0x80)
#define ADD3(a, b, c) ((a) + (b) + (c))

#if VERSION >= 3
#define TAG 8w0x33
#elif VERSION == 2
#define TAG 8w0x22
#else
#define TAG 8w0x11
#endif

#ifdef FLIP
#define FILL 8w0xFE
#else
#define FILL 8w0xEF
#endif

header payload_t {
    bit<8> a;
    bit<8> b;
    bit<8> fill;
    bit<8> tag;
}

struct headers_t {
    ethernet_t ethernet;
    payload_t  payload;
}

struct meta_t { }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETHERTYPE_TEST: parse_payload;
            default: accept;
        }
    }
    state parse_payload {
        pkt.extract(hdr.payload);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = OUT_PORT;
        if (hdr.payload.isValid()) {
            hdr.payload.a = MARK(hdr.payload.a);
            hdr.payload.b = ADD3(hdr.payload.b, 8w1, 8w2);
            hdr.payload.fill = FILL;
            hdr.payload.tag = TAG;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.payload);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
