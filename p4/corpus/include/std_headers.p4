/* Shared header types for the fabemu corpus (included as "include/std_headers.p4"). */
#ifndef _CORPUS_STD_HEADERS_P4_
#define _CORPUS_STD_HEADERS_P4_

const bit<16> ETHERTYPE_IPV4 = 16w0x0800;
const bit<16> ETHERTYPE_TEST = 16w0x88B5;  // IEEE local experimental EtherType 1
const bit<8>  IPPROTO_UDP = 8w17;

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

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length_;
    bit<16> checksum;
}

#endif  /* _CORPUS_STD_HEADERS_P4_ */
