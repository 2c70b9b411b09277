/* validity_keys.p4 -- table keys on header validity, `h.isValid(): exact`. p4c-bm2-ss
 * names such a key `h.$valid$` (in the JSON and in the P4Info), so the control plane and
 * the STF give it as `hdr.opt.$valid$:1`.
 * Tests: a parsed header's validity as the only key (entries for valid and for invalid),
 * a metadata header's validity (set in the control) next to one of its fields, the
 * validity of two header-stack elements, one of them renamed by `@name`.
 * Packet: Ethernet (0x88B5) + vk_t {k, r1, r2, r3}; k = 1 adds opt_t, k = 2 (3) one (two)
 * stack elements; k = 4 makes the metadata header valid.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header vk_t {
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
}

header opt_t {
    bit<8> v;
}

header tag_t {
    bit<8> x;
}

struct headers_t {
    ethernet_t ethernet;
    vk_t       vk;
    opt_t      opt;
    opt_t[2]   stk;
}

struct meta_t {
    tag_t tag;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.vk);
        transition select(hdr.vk.k) {
            1: parse_opt;
            2: parse_one;
            3: parse_two;
            default: accept;
        }
    }
    state parse_opt {
        pkt.extract(hdr.opt);
        transition accept;
    }
    state parse_one {
        pkt.extract(hdr.stk.next);
        transition accept;
    }
    state parse_two {
        pkt.extract(hdr.stk.next);
        pkt.extract(hdr.stk.next);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_r1(bit<8> v) { hdr.vk.r1 = v; }
    action set_r2(bit<8> v) { hdr.vk.r2 = v; }
    action set_r3(bit<8> v) { hdr.vk.r3 = v; }
    table t_opt {
        key = { hdr.opt.isValid(): exact; }
        actions = { set_r1; NoAction; }
        default_action = NoAction();
    }
    table t_tag {
        key = {
            meta.tag.x: exact;
            meta.tag.isValid(): exact;
        }
        actions = { set_r2; NoAction; }
        default_action = NoAction();
    }
    table t_stk {
        key = {
            hdr.stk[0].isValid(): exact;
            hdr.stk[1].isValid(): exact @name("second");
        }
        actions = { set_r3; NoAction; }
        default_action = NoAction();
    }
    apply {
        std.egress_spec = 1;
        if (hdr.vk.k == 8w4) {
            meta.tag.setValid();
            meta.tag.x = 8w7;
        }
        t_opt.apply();
        t_tag.apply();
        t_stk.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vk);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.stk);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
