/* clone_rx_port.p4 -- the port an I2E clone is parsed again with.
 * BMv2 parses an I2E clone again from the frame as received, with the port it came in on
 * (packet->get_ingress_port()), which resubmit and recirculation keep; not with
 * standard_metadata.ingress_port, which the program may write and a re-entry resets to 0.
 * Tests (by the last byte of eth.dst, "mode"): the parser extracts c only for
 * ingress_port 3; 1: ingress writes ingress_port = 7, egress recirculates once, the second
 * pass clones (session 5); 2: two recirculations, then a clone (session 6); 3: a clone in
 * the first pass after ingress wrote ingress_port = 7 (session 7). Egress writes o with
 * ingress_port, instance_type and the recirculation count n of each copy.
 * Packet: eth_t, c_t {a, b} (ingress port 3 only), payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header c_t {
    bit<16> a;
    bit<16> b;
}

header o_t {
    bit<16> port;
    bit<8>  itype;
    bit<8>  n;
}

struct headers_t {
    eth_t eth;
    c_t c;
    o_t o;
}

struct meta_t {
    @field_list(1) bit<8> n;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.eth);
        transition select(std.ingress_port) {
            3: parse_c;
            default: accept;
        }
    }
    state parse_c {
        pkt.extract(hdr.c);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        bit<8> mode = hdr.eth.dst[7:0];
        std.egress_spec = (bit<9>)mode;
        if (mode == 1 && meta.n == 0) {
            std.ingress_port = 7;
        }
        if (mode == 1 && meta.n == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        }
        if (mode == 2 && meta.n == 2) {
            clone_preserving_field_list(CloneType.I2E, 6, 1);
        }
        if (mode == 3) {
            std.ingress_port = 7;
            clone_preserving_field_list(CloneType.I2E, 7, 1);
        }
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        bit<8> mode = hdr.eth.dst[7:0];
        if (std.instance_type == 0 && ((mode == 1 && meta.n < 1) || (mode == 2 && meta.n < 2))) {
            meta.n = meta.n + 1;
            recirculate_preserving_field_list(1);
        } else {
            hdr.o.setValid();
            hdr.o.port = (bit<16>)std.ingress_port;
            hdr.o.itype = std.instance_type[7:0];
            hdr.o.n = meta.n;
        }
    }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.eth);
        pkt.emit(hdr.c);
        pkt.emit(hdr.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
