/* target_varbit_stack.p4 -- extract with a run-time length into a header stack of varbit
 * headers (p4c-bm2-ss: extract_VL with a "stack" target), and a varbit comparison between
 * two stack members. Each option is a length byte (in bytes) then that many data bytes. */
#include <core.p4>
#include <v1model.p4>

header len_t { bit<8> n; }
header opt_t { bit<8> kind; varbit<64> data; }
header result_t { bit<8> same; }

struct headers_t {
    result_t result;
    len_t[2] lens;
    opt_t[2] opts;
}
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.lens.next);
        pkt.extract(hdr.opts.next, (bit<32>)hdr.lens.last.n * 8);
        pkt.extract(hdr.lens.next);
        pkt.extract(hdr.opts.next, (bit<32>)hdr.lens.last.n * 8);
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.result.setValid();
        hdr.result.same = (hdr.opts[0].data == hdr.opts[1].data) ? 8w1 : 8w0;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.result);
        pkt.emit(hdr.opts);
    }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
