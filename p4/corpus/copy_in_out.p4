/* copy_in_out.p4 -- inout/out arguments are copied in and copied back (P4-16 6.8).
 * Tests: one field passed as two inout arguments of an action (the last copy-out wins), an
 * action writing a field it also receives as inout (the copy-out overwrites the write), an
 * out argument that is also an in argument, a function with an inout parameter and an
 * early return (copied back on either path), a swap function called with two fields and
 * with one field twice.
 * Packet: Ethernet (0x88B5) + cio_t {x, y, z, w, f, m, n, k}.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header cio_t {
    bit<8> x;
    bit<8> y;
    bit<8> z;
    bit<8> w;
    bit<8> f;
    bit<8> m;
    bit<8> n;
    bit<8> k;
}

struct headers_t {
    ethernet_t ethernet;
    cio_t      cio;
}

struct meta_t { }

bit<8> clamp(inout bit<8> v, in bit<8> hi) {
    if (v > hi) {
        v = hi;
        return 8w1;
    }
    v = v + 8w1;
    return 8w0;
}

void swap(inout bit<8> a, inout bit<8> b) {
    bit<8> t = a;
    a = b;
    b = t;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.cio);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action both(inout bit<8> p, inout bit<8> q) {
        p = p + 8w1;
        q = q << 1;
    }
    action touch(inout bit<8> v) {
        hdr.cio.y = 8w5;
        v = v + 8w1;
    }
    action set_out(out bit<8> o, in bit<8> i) {
        o = i + 8w1;
    }

    apply {
        std.egress_spec = 1;
        both(hdr.cio.x, hdr.cio.x);
        touch(hdr.cio.y);
        set_out(hdr.cio.z, hdr.cio.z);
        hdr.cio.f = clamp(hdr.cio.w, 8w10);
        swap(hdr.cio.m, hdr.cio.n);
        swap(hdr.cio.k, hdr.cio.k);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.cio);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
