/* parser_select.p4 -- select expressions, value_set and sub-parsers.
 * Tests: select on a tuple (a, b) with masks (&&&), ranges (..), the `_` wildcard inside a
 * tuple, `default`, a value_set (empty unless the control plane adds members, so it never
 * matches in the plain STF), assignments in parser states, and a sub-parser (a parser
 * instantiated in another parser and called with apply, receiving an out header).
 * Each path writes its number into key_t.path; path 2 also parses a tail_t via TailParser.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/std_headers.p4"

header key_t {
    bit<8> a;
    bit<8> b;
    bit<8> path;
}

header tail_t {
    bit<16> value;
}

struct headers_t {
    ethernet_t ethernet;
    key_t      key;
    tail_t     tail;
}

struct meta_t { }

parser TailParser(packet_in pkt, out tail_t tail) {
    state start {
        pkt.extract(tail);
        transition accept;
    }
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t std) {
    TailParser() tail_parser;
    value_set<bit<8>>(4) special_b;

    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.key);
        transition select(hdr.key.a, hdr.key.b) {
            (8w0x10 &&& 8w0xF0, 8w0x01): path1;     // a = 0x1?, b = 1
            (8w0x20 .. 8w0x2F, _):       path2;     // a in [0x20, 0x2f], any b
            (_, 8w0xFF):                 path3;     // any a, b = 0xff
            default:                     check_set;
        }
    }
    state path1 {
        hdr.key.path = 8w1;
        transition accept;
    }
    state path2 {
        hdr.key.path = 8w2;
        tail_parser.apply(pkt, hdr.tail);
        transition accept;
    }
    state path3 {
        hdr.key.path = 8w3;
        transition accept;
    }
    state check_set {
        transition select(hdr.key.b) {
            special_b: path4;
            default:   path5;
        }
    }
    state path4 {
        hdr.key.path = 8w4;
        transition accept;
    }
    state path5 {
        hdr.key.path = 8w5;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.tail.isValid()) {
            hdr.tail.value = ~hdr.tail.value;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.key);
        pkt.emit(hdr.tail);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
