/* Shared declarations for the focused compiler test programs. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seq;
}

header vlan_t {
    bit<16> tci;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
    vlan_t[2]  vlan;
    ipv4_t     ipv4;
    tcp_t      tcp;
}

struct meta_t {
    bit<16> sel;
    bit<32> r;
    bit<8>  color;
    @field_list(1) bit<8> keep;
    bool    flag;
}

/* a P4 function (inlined by the compiler) */
bit<8> dec(in bit<8> v, in bit<8> by) {
    if (v < by) {
        return 8w0;
    }
    return v - by;
}

/* a reusable sub-control (instantiated by tests as `Sub() sub;`) */
control Sub(inout headers_t h, inout standard_metadata_t sm) {
    action set_port(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { h.ipv4.ttl: exact; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}

#define EMPTY_CONTROLS \
control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } } \
control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

#define SIMPLE_PARSER \
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, \
                inout standard_metadata_t std) { \
    state start { \
        pkt.extract(hdr.ethernet); \
        transition select(hdr.ethernet.etherType) { \
            16w0x0800: parse_ipv4; \
            default: accept; \
        } \
    } \
    state parse_ipv4 { \
        pkt.extract(hdr.ipv4); \
        transition accept; \
    } \
}

#define SIMPLE_DEPARSER \
control MyDeparser(packet_out pkt, in headers_t hdr) { \
    apply { pkt.emit(hdr); } \
}

#define EMPTY_EGRESS \
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

#define MAIN V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), \
                      MyComputeChecksum(), MyDeparser()) main;
