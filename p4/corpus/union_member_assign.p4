/* union_member_assign.p4 -- a header assigned into a member of a header union. BMv2's
 * assign_header marks the destination valid the way setValid() does, so the union's other
 * members become invalid; an invalid source makes the member invalid and leaves the
 * others. Egress packet_length is not changed by either.
 * Tests: a valid header copied into an invalid member while another member is valid, a
 * member assigned to itself, an invalid header copied into a member, an invalid header
 * copied into a plain header; egress writes packet_length into rep_t.len.
 * Packet: rep_t {k, len(32)}, a_t ea, then b_t as the union's parsed member.
 */
#include <core.p4>
#include <v1model.p4>
header rep_t {
    bit<8> k;
    bit<32> len;
}
header a_t { bit<32> x; }
header b_t { bit<8> y; bit<8> z; }
header_union u_t { a_t a; b_t b; }
struct headers_t { rep_t rep; a_t ea; a_t inv; u_t u; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.rep); pkt.extract(hdr.ea); pkt.extract(hdr.u.b); transition accept; }
}
control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = 1;
        if (hdr.rep.k == 1) {
            hdr.u.a = hdr.ea;        // valid source: u.a valid, u.b invalid
        } else if (hdr.rep.k == 2) {
            hdr.u.b = hdr.u.b;       // same member
        } else if (hdr.rep.k == 3) {
            hdr.u.a = hdr.inv;       // invalid source: u.a invalid, u.b untouched?
        } else if (hdr.rep.k == 4) {
            hdr.ea = hdr.inv;        // invalid source into a plain header
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply { hdr.rep.len = std.packet_length; }
}
control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
