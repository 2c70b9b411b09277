/* value_set_fields.p4 -- a parser value set over two fields that are not whole bytes.
 * The control plane gives an entry as the fields' bits packed together (`pvs_add vs
 * 0x025` for (a, b) = (0x12, 1)); the select key lays each field out in whole bytes, so
 * the entry is spread the same way before it is compared (as BMv2 does).
 * Tests: three entries of a {bit<8>, bit<1>} value set, a tuple case after the value set
 * (reached only when no entry matches), a wildcard case, the default.
 * (simple_switch_CLI computes a value set's byte count with float division: widths other
 * than 8n+1 bits abort simple_switch, so this one is 9 bits wide.)
 * Packet: eth_t, then vs_t {a, b, pad(7), o}, then payload.
 */
#include <core.p4>
#include <v1model.p4>

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}

header vs_t {
    bit<8> a;
    bit<1> b;
    bit<7> pad;
    bit<8> o;
}

struct pv_t {
    bit<8> a;
    bit<1> b;
}

struct headers_t {
    eth_t eth;
    vs_t v;
}

struct meta_t {
    bit<8> unused;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    value_set<pv_t>(4) vs;

    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.v);
        transition select(hdr.v.a, hdr.v.b) {
            vs: in_set;
            (0x12, 0x1): tuple_case;
            (0xab, _): wildcard_case;
            default: accept;
        }
    }
    state in_set {
        hdr.v.o = 1;
        transition accept;
    }
    state tuple_case {
        hdr.v.o = 2;
        transition accept;
    }
    state wildcard_case {
        hdr.v.o = 3;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
