/*
 * parser.p4 -- parser, checksum controls and deparser of the RoCE fabric program.
 *
 *   start -> ethernet -+-> vlan --+-> ipv4 -> udp --(dport 4791)--> bth -+-> reth
 *                      |          |                                     +-> aeth
 *                      +----------+-> pfc (0x8808, MAC control)         +-> accept
 */
#ifndef ROCE_PARSER_P4
#define ROCE_PARSER_P4

parser RoceParser(packet_in pkt,
                  out headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_MAC_CTRL: parse_mac_control;
            default: accept;
        }
    }

    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    /*
     * MAC control frames are link-local: they are extracted with the PFC layout
     * (opcode first) and ingress counts the PFC ones (opcode 0x0101), then drops all.
     */
    state parse_mac_control {
        pkt.extract(hdr.pfc);
        transition accept;
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            IP_PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            UDP_PORT_ROCEV2: parse_bth;
            default: accept;
        }
    }

    /*
     * The BTH opcode tells which extended header follows (IBA opcodes; RC 0x00-0x1f,
     * UC 0x20-0x3f). Atomic and immediate-data headers are left in the payload.
     */
    state parse_bth {
        pkt.extract(hdr.bth);
        transition select(hdr.bth.opcode) {
            0x06: parse_reth;  /* RC RDMA WRITE First                 */
            0x0a: parse_reth;  /* RC RDMA WRITE Only                  */
            0x0b: parse_reth;  /* RC RDMA WRITE Only with Immediate   */
            0x0c: parse_reth;  /* RC RDMA READ Request                */
            0x26: parse_reth;  /* UC RDMA WRITE First                 */
            0x2a: parse_reth;  /* UC RDMA WRITE Only                  */
            0x2b: parse_reth;  /* UC RDMA WRITE Only with Immediate   */
            0x0d: parse_aeth;  /* RC RDMA READ Response First         */
            0x0f: parse_aeth;  /* RC RDMA READ Response Last          */
            0x10: parse_aeth;  /* RC RDMA READ Response Only          */
            0x11: parse_aeth;  /* RC Acknowledge                      */
            0x12: parse_aeth;  /* RC Atomic Acknowledge               */
            default: accept;
        }
    }

    state parse_reth {
        pkt.extract(hdr.reth);
        transition accept;
    }

    state parse_aeth {
        pkt.extract(hdr.aeth);
        transition accept;
    }
}

/* Received checksums are not verified: a switch forwards what it gets. */
control RoceVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

/* TTL and ECN change in flight, so the IPv4 header checksum is recomputed. */
control RoceComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.total_len,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.frag_offset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.src_addr,
              hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control RoceDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.pfc);
        pkt.emit(hdr.pfc_pad);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.bth);
        pkt.emit(hdr.reth);
        pkt.emit(hdr.aeth);
    }
}

#endif  /* ROCE_PARSER_P4 */
