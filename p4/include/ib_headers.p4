/*
 * ib_headers.p4 -- header types of the InfiniBand fabric program (p4/ib_fabric.p4).
 *
 * On emulated links an IB packet rides in an Ethernet shim with the IEEE 802
 * "Local Experimental Ethertype 2" 0x88B5 (IEEE Std 802, clause 9.2.4; never assigned to
 * a product, free for experiments like this one):
 *
 *   Ethernet(dst, src, 0x88B5) | LRH (8) | BTH (12) | [RETH | AETH] | payload | ICRC (4) | VCRC (2)
 *
 * Field names and widths are a contract with the scapy layers in emulator/ib/headers.py
 * (tests/ib/test_headers.py checks that they agree).
 */
#ifndef IB_HEADERS_P4
#define IB_HEADERS_P4

const bit<16> ETHERTYPE_IB_SHIM = 0x88B5;
const bit<2>  LNH_IBA_LOCAL = 2;     /* LRH.LNH: BTH follows (no GRH) */
const bit<4>  VL_MANAGEMENT = 15;    /* VL15: subnet management (not forwarded here) */

#define IB_PORTS      512
#define IB_LIDS       4096            /* unicast LIDs modelled: 1..4095 */
#define AR_MAX        8               /* candidate ports per DLID for adaptive routing */
#define AR_SLOTS      32768           /* IB_LIDS * AR_MAX */

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

/* Local Route Header (IBTA 7.7), 8 bytes. pktlen in 4-byte words, LRH..ICRC. */
header lrh_t {
    bit<4>  vl;
    bit<4>  lver;
    bit<4>  sl;
    bit<2>  rsvd2;
    bit<2>  lnh;
    bit<16> dlid;
    bit<5>  rsvd5;
    bit<11> pktlen;
    bit<16> slid;
}

/* Base Transport Header (IBTA 9.2), 12 bytes; same names as the RoCE program's bth_t. */
header bth_t {
    bit<8>  opcode;
    bit<1>  se;
    bit<1>  migreq;
    bit<2>  padcnt;
    bit<4>  tver;
    bit<16> pkey;
    bit<1>  fecn;
    bit<1>  becn;
    bit<6>  resv6;
    bit<24> dqpn;
    bit<1>  ackreq;
    bit<7>  resv7;
    bit<24> psn;
}

struct ib_headers_t {
    ethernet_t ethernet;
    lrh_t      lrh;
    bth_t      bth;
}

struct ib_metadata_t {
    bit<1>  adaptive;      /* set_config: 1 = adaptive routing on */
    bit<1>  routed;
    bit<8>  ar_n;          /* candidates for this DLID */
    bit<32> ar_best;       /* lowest occupancy seen */
}

#endif
