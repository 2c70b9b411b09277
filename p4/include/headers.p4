/*
 * headers.p4 -- header types, metadata and constants of the RoCE fabric program.
 *
 * Field names and widths are a contract: the scapy layers in emulator/traffic/
 * and the control plane in emulator/control/ use exactly these names.
 *
 *   Ethernet | [802.1Q] | IPv4 | UDP(dport 4791) | BTH | [RETH | AETH] | payload
 *   Ethernet | MAC control (0x8808) opcode 0x0101 = PFC
 */
#ifndef ROCE_HEADERS_P4
#define ROCE_HEADERS_P4

/* ---- EtherTypes, protocol numbers, ports ---------------------------------- */
const bit<16> ETHERTYPE_IPV4     = 0x0800;
const bit<16> ETHERTYPE_VLAN     = 0x8100;
const bit<16> ETHERTYPE_MAC_CTRL = 0x8808;
const bit<16> MAC_CTRL_OPCODE_PFC = 0x0101;
const bit<8>  IP_PROTO_UDP       = 17;
const bit<16> UDP_PORT_ROCEV2    = 4791;

/* PFC frames go to the reserved MAC-control multicast address. */
const bit<48> MAC_CTRL_DST = 0x0180C2000001;

/* ---- Load-balancing modes and hash algorithms (values of set_switch_config) */
const bit<8> LB_ECMP    = 0;  /* baseline ECMP: IPv4/UDP 5-tuple                  */
const bit<8> LB_EECMP   = 1;  /* E-ECMP: 5-tuple + BTH destination QP             */
const bit<8> LB_PIN     = 2;  /* path pinning: path_pin table, else 5-tuple ECMP  */
const bit<8> LB_FLOWLET = 3;  /* flowlet switching: 5-tuple + flowlet id          */

const bit<8> HASH_CRC16 = 0;  /* CRC-16/ARC                                        */
const bit<8> HASH_CRC32 = 1;  /* CRC-32/ISO-HDLC, low 16 bits kept                 */

/* ---- Switch roles (informational except for path pinning) ------------------ */
const bit<8> ROLE_LEAF  = 0;  /* RTSW: hosts below, spines above                   */
const bit<8> ROLE_SPINE = 1;  /* CTSW                                             */
const bit<8> ROLE_AGG   = 2;  /* ATSW: spine-like aggregation layer               */

/* ---- Sizes --------------------------------------------------------------- */
#define NUM_PORTS          512          /* v1model ports are bit<9>           */
#define NUM_PRIOS          8
#define PORT_PRIO_SLOTS    4096         /* NUM_PORTS * NUM_PRIOS              */
#define FLOWLET_SLOTS      1024
#define PFC_MIRROR_BASE    32w100       /* mirror session = base + port       */

/* v1model instance_type of clones (BMv2 simple_switch) and the drop port. */
const bit<32> INSTANCE_TYPE_I2E_CLONE = 1;
const bit<32> INSTANCE_TYPE_E2E_CLONE = 2;
const bit<9>  DROP_PORT = 511;

/* ---- Headers --------------------------------------------------------------- */
header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

/* IPv4 without options (ihl = 5): the fabric's RoCEv2 traffic carries none. */
header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/* InfiniBand Base Transport Header (IBA spec vol. 1, 9.2), 12 bytes. */
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

/* RDMA Extended Transport Header (RDMA WRITE first/only, READ request), 16 bytes. */
header reth_t {
    bit<64> va;
    bit<32> rkey;
    bit<32> dlen;
}

/* ACK Extended Transport Header (ACK, READ responses), 4 bytes. */
header aeth_t {
    bit<8>  syndrome;
    bit<24> msn;
}

/*
 * IEEE 802.1Qbb priority flow control (a MAC control frame, 20 bytes after the
 * EtherType). Bit i of class_enable_vector enables pause_time<i>, in quanta of
 * 512 bit times; 0 means XON (resume now). The upper 8 bits are reserved.
 */
header pfc_t {
    bit<16> opcode;
    bit<16> class_enable_vector;
    bit<16> pause_time0;
    bit<16> pause_time1;
    bit<16> pause_time2;
    bit<16> pause_time3;
    bit<16> pause_time4;
    bit<16> pause_time5;
    bit<16> pause_time6;
    bit<16> pause_time7;
}

/* Zero padding that brings a generated PFC frame to the 60-byte minimum. */
header pfc_pad_t {
    bit<208> zeros;
}

struct headers_t {
    ethernet_t ethernet;
    vlan_t     vlan;
    pfc_t      pfc;
    pfc_pad_t  pfc_pad;
    ipv4_t     ipv4;
    udp_t      udp;
    bth_t      bth;
    reth_t     reth;
    aeth_t     aeth;
}

/*
 * Field-list id of the metadata an E2E clone keeps (the PFC frame to build): the
 * literal in the @field_list annotations below must equal this constant.
 */
const bit<8> PFC_FIELD_LIST = 1;

struct metadata_t {
    /* switch configuration (set_switch_config) */
    bit<8>  role;
    bit<8>  lb_mode;
    bit<8>  hash_algo;
    bit<48> flowlet_gap;      /* microseconds */

    /* load-balancing key inputs; zero when the header is absent */
    bit<16> l4_src_port;
    bit<16> l4_dst_port;
    bit<24> dst_qp;

    /* flowlet state of this packet's flow */
    bit<32> flowlet_slot;
    bit<16> flowlet_id;

    /* the action selector's only input: see docs/p4-programs.md */
    bit<16> lb_hash;

    /* QoS */
    bit<3>  traffic_class;
    bit<32> port_prio_index;  /* port * 8 + priority, counter/register index */

    /*
     * PFC generation: carried into the clone that becomes the PFC frame. An XON
     * frame also carries its queue (pfc_queue_port, pfc_prio) and that queue's XON
     * threshold, so that its own egress can release the queue's next waiter.
     */
    @field_list(1)
    bit<3>  pfc_prio;
    @field_list(1)
    bit<16> pfc_quanta;
    @field_list(1)
    bit<9>  pfc_queue_port;
    @field_list(1)
    bit<19> pfc_xon;

    /* PFC thresholds of the packet's queue (pfc_enabled = 0: no PFC for it) */
    bit<1>  pfc_enabled;
    bit<19> pfc_xoff;
    bit<48> pfc_refresh;      /* microseconds */

    /* ECN marking threshold of the packet's queue */
    bit<19> ecn_threshold;
}

#endif  /* ROCE_HEADERS_P4 */
