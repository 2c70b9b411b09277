/*
 * roce_fabric.p4 -- the RoCE AI-zone switch (v1model), one program for every role.
 *
 * Leaf (RTSW), spine (CTSW) and aggregation (ATSW) switches all run this program;
 * the control plane (emulator/control) fills the tables for the switch's role and
 * sets role, load-balancing mode and hash algorithm at run time (switch_config).
 *
 *  ingress  switch_config
 *           PFC frame?  -> count per priority, drop (the MAC already honoured it)
 *           dscp_to_tc -> tc_to_queue                       => standard_metadata.priority
 *           load balancing: hash(5-tuple [+ QP | + flowlet]) => meta.lb_hash
 *           path_pin (leaf, mode LB_PIN): static lb_hash per destination
 *           ipv4_route: lpm dst_addr, selector(lb_hash)      => set_nhop(port, dmac)
 *           pfc_thresholds: queue above XOFF -> I2E clone = XOFF to the sender
 *  TM       8 strict-priority queues per port (7 highest)
 *  egress   clone?  -> rebuild it as a PFC frame to the upstream neighbour
 *           XON frame? -> also release the next neighbour waiting on its queue
 *           tx counters, ECN CE mark, PFC XON (queue below XON), port_mac
 *
 * docs/p4-programs.md lists every table and the exact bytes hashed by each mode.
 */
#include <core.p4>
#include <v1model.p4>

#include "include/headers.p4"
#include "include/parser.p4"

/*
 * PFC state shared by ingress (XOFF) and egress (XON); index port * 8 + priority.
 *   queue_occupancy[egress port, prio]  packets in the queue: +1 for every packet
 *                                       routed to it (ingress), re-synchronised to
 *                                       deq_qdepth at every dequeue (egress)
 *   pfc_paused[ingress port, prio]      a pause towards that neighbour is outstanding
 *   pfc_last_xoff[ingress port, prio]   when the last XOFF was sent (us)
 *   pfc_waiters[egress port, prio]      the queue's waiting list: 1 + the port of the
 *                                       neighbour it paused last, 0 = empty
 *   pfc_next_waiter[ingress port, prio] 1 + the next neighbour in the same list, 0 = end
 *
 * Invariant: pfc_paused[N, p] == 1  <=>  N is in exactly one waiting list of priority
 * p, that of the queue whose XOFF paused it. A neighbour leaves the list only when it is
 * sent its XON, so a pause is never forgotten (docs/p4-programs.md, "PFC generation").
 */
register<bit<19>>(PORT_PRIO_SLOTS) queue_occupancy;
register<bit<1>>(PORT_PRIO_SLOTS) pfc_paused;
register<bit<48>>(PORT_PRIO_SLOTS) pfc_last_xoff;
register<bit<10>>(PORT_PRIO_SLOTS) pfc_waiters;
register<bit<10>>(PORT_PRIO_SLOTS) pfc_next_waiter;

control RoceIngress(inout headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    /* Per (ingress port, queue) counters, index port * 8 + priority. */
    counter(PORT_PRIO_SLOTS, CounterType.packets_and_bytes) rx_counter;
    counter(PORT_PRIO_SLOTS, CounterType.packets) drop_counter;
    counter(PORT_PRIO_SLOTS, CounterType.packets) pfc_rx_counter;

    /* Last PFC pause time received and a frame sequence number per (port, prio):
     * the real-BMv2 PFC agent polls these (emulator/control/pfc_agent.py). */
    register<bit<16>>(PORT_PRIO_SLOTS) pfc_rx_quanta;
    register<bit<32>>(PORT_PRIO_SLOTS) pfc_rx_seq;

    /* Flowlet state, indexed by a CRC16 of the 5-tuple + QP. */
    register<bit<48>>(FLOWLET_SLOTS) flowlet_last_seen;
    register<bit<16>>(FLOWLET_SLOTS) flowlet_ids;

    /*
     * ECMP. The selector hashes only meta.lb_hash, with the identity algorithm, so
     * the member used is members[lb_hash % group_size], members ordered by handle.
     * The real hash (mode and algorithm chosen at run time) is computed in apply.
     */
    action_selector(HashAlgorithm.identity, 32w1024, 32w16) ecmp_selector;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    /* ---- switch configuration (keyless: set with table_set_default) ---------- */
    action set_switch_config(bit<8> role, bit<8> lb_mode, bit<8> hash_algo,
                             bit<48> flowlet_gap_us) {
        meta.role = role;
        meta.lb_mode = lb_mode;
        meta.hash_algo = hash_algo;
        meta.flowlet_gap = flowlet_gap_us;
    }

    table switch_config {
        actions = { set_switch_config; }
        default_action = set_switch_config(ROLE_LEAF, LB_ECMP, HASH_CRC16, 48w100);
        size = 1;
    }

    /* ---- QoS: DSCP -> traffic class -> egress queue ------------------------- */
    action set_traffic_class(bit<3> tc) {
        meta.traffic_class = tc;
    }

    table dscp_to_tc {
        key = { hdr.ipv4.dscp: exact; }
        actions = { set_traffic_class; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    action set_queue(bit<3> qid) {
        standard_metadata.priority = qid;
    }

    table tc_to_queue {
        key = { meta.traffic_class: exact; }
        actions = { set_queue; NoAction; }
        default_action = NoAction();
        size = 8;
    }

    /* ---- received PFC frames -------------------------------------------------- */
    action record_pfc_rx(bit<3> prio, bit<16> quanta) {
        bit<32> idx = ((bit<32>)standard_metadata.ingress_port << 3) + (bit<32>)prio;
        bit<32> seq;
        pfc_rx_counter.count(idx);
        pfc_rx_quanta.write(idx, quanta);
        pfc_rx_seq.read(seq, idx);
        pfc_rx_seq.write(idx, seq + 1);
    }

    /* ---- load balancing ---------------------------------------------------------
     * lb_hash = H(key) mod 65536, H = CRC-16/ARC (HASH_CRC16) or CRC-32 (HASH_CRC32);
     * key fields concatenated most significant first (BMv2 field-list packing):
     *   LB_ECMP, LB_PIN: src_addr(32) dst_addr(32) protocol(8) sport(16) dport(16)  13 B
     *   LB_EECMP:        the same + BTH dqpn(24)                                    16 B
     *   LB_FLOWLET:      the same 13 B + flowlet_id(16)                             15 B
     * sport/dport are the UDP ports (0 without UDP), dqpn the BTH QP (0 without BTH).
     */
    action next_flowlet() {
        meta.flowlet_id = meta.flowlet_id + 1;
        flowlet_ids.write(meta.flowlet_slot, meta.flowlet_id);
    }

    action hash_5tuple_crc16() {
        hash(meta.lb_hash, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port },
             32w65536);
    }

    action hash_5tuple_crc32() {
        hash(meta.lb_hash, HashAlgorithm.crc32, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port },
             32w65536);
    }

    action hash_qp_crc16() {
        hash(meta.lb_hash, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port, meta.dst_qp },
             32w65536);
    }

    action hash_qp_crc32() {
        hash(meta.lb_hash, HashAlgorithm.crc32, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port, meta.dst_qp },
             32w65536);
    }

    action hash_flowlet_crc16() {
        hash(meta.lb_hash, HashAlgorithm.crc16, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port, meta.flowlet_id },
             32w65536);
    }

    action hash_flowlet_crc32() {
        hash(meta.lb_hash, HashAlgorithm.crc32, 16w0,
             { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
               meta.l4_src_port, meta.l4_dst_port, meta.flowlet_id },
             32w65536);
    }

    /* ---- path pinning: a static per-destination lb_hash ------------------------ */
    action pin_path(bit<16> path) {
        meta.lb_hash = path;
    }

    table path_pin {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { pin_path; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    /* ---- PFC generation, XOFF side (the XON side is in egress) ------------------ */
    action set_pfc_thresholds(bit<19> xoff, bit<19> xon, bit<16> quanta,
                              bit<48> refresh_us) {
        meta.pfc_enabled = 1;
        meta.pfc_xoff = xoff;
        meta.pfc_xon = xon;
        meta.pfc_quanta = quanta;
        meta.pfc_refresh = refresh_us;
    }

    /* Queues (egress port, priority) without an entry never generate PFC. */
    table pfc_thresholds {
        key = {
            standard_metadata.egress_spec: exact;
            standard_metadata.priority: exact;
        }
        actions = { set_pfc_thresholds; NoAction; }
        default_action = NoAction();
        size = PORT_PRIO_SLOTS;
    }

    /* I2E-clone this packet; egress turns the clone into an XOFF PFC frame that
     * leaves by the ingress port, i.e. towards the neighbour that sent it. */
    action send_xoff() {
        meta.pfc_prio = standard_metadata.priority;
        clone_preserving_field_list(CloneType.I2E,
                                    PFC_MIRROR_BASE + (bit<32>)standard_metadata.ingress_port,
                                    PFC_FIELD_LIST);
    }

    /* ---- L3 routing: every entry points at a group of set_nhop / drop members -- */
    action set_nhop(bit<9> port, bit<48> dmac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_route {
        key = {
            hdr.ipv4.dst_addr: lpm;
            meta.lb_hash: selector;
        }
        actions = { set_nhop; drop; }
        implementation = ecmp_selector;
        size = 4096;
    }

    apply {
        switch_config.apply();

        if (hdr.pfc.isValid()) {
            /* MAC control frames are link-local: count PFC per priority, drop all. */
            if (hdr.pfc.opcode == MAC_CTRL_OPCODE_PFC) {
                bit<16> cev = hdr.pfc.class_enable_vector;
                if (cev[0:0] == 1) { record_pfc_rx(0, hdr.pfc.pause_time0); }
                if (cev[1:1] == 1) { record_pfc_rx(1, hdr.pfc.pause_time1); }
                if (cev[2:2] == 1) { record_pfc_rx(2, hdr.pfc.pause_time2); }
                if (cev[3:3] == 1) { record_pfc_rx(3, hdr.pfc.pause_time3); }
                if (cev[4:4] == 1) { record_pfc_rx(4, hdr.pfc.pause_time4); }
                if (cev[5:5] == 1) { record_pfc_rx(5, hdr.pfc.pause_time5); }
                if (cev[6:6] == 1) { record_pfc_rx(6, hdr.pfc.pause_time6); }
                if (cev[7:7] == 1) { record_pfc_rx(7, hdr.pfc.pause_time7); }
            }
            drop();
        } else if (hdr.ipv4.isValid()) {
            dscp_to_tc.apply();
            tc_to_queue.apply();
            meta.port_prio_index = ((bit<32>)standard_metadata.ingress_port << 3)
                                   + (bit<32>)standard_metadata.priority;
            rx_counter.count(meta.port_prio_index);
            if (hdr.ipv4.ttl <= 1) {
                drop();
                drop_counter.count(meta.port_prio_index);
            } else {
                /* hash inputs that may be absent are zero */
                if (hdr.udp.isValid()) {
                    meta.l4_src_port = hdr.udp.src_port;
                    meta.l4_dst_port = hdr.udp.dst_port;
                }
                if (hdr.bth.isValid()) {
                    meta.dst_qp = hdr.bth.dqpn;
                }
                if (meta.lb_mode == LB_EECMP) {
                    if (meta.hash_algo == HASH_CRC32) {
                        hash_qp_crc32();
                    } else {
                        hash_qp_crc16();
                    }
                } else if (meta.lb_mode == LB_FLOWLET) {
                    /* a new flowlet id when the flow was idle longer than the gap */
                    bit<48> last_seen;
                    hash(meta.flowlet_slot, HashAlgorithm.crc16, 32w0,
                         { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
                           meta.l4_src_port, meta.l4_dst_port, meta.dst_qp },
                         32w1024);
                    flowlet_last_seen.read(last_seen, meta.flowlet_slot);
                    flowlet_ids.read(meta.flowlet_id, meta.flowlet_slot);
                    if (standard_metadata.ingress_global_timestamp - last_seen
                            > meta.flowlet_gap) {
                        next_flowlet();
                    }
                    flowlet_last_seen.write(meta.flowlet_slot,
                                            standard_metadata.ingress_global_timestamp);
                    if (meta.hash_algo == HASH_CRC32) {
                        hash_flowlet_crc32();
                    } else {
                        hash_flowlet_crc16();
                    }
                } else {
                    /* LB_ECMP, and LB_PIN for destinations without a pin */
                    if (meta.hash_algo == HASH_CRC32) {
                        hash_5tuple_crc32();
                    } else {
                        hash_5tuple_crc16();
                    }
                    if (meta.lb_mode == LB_PIN && meta.role == ROLE_LEAF) {
                        path_pin.apply();
                    }
                }
                if (!ipv4_route.apply().hit) {
                    drop();
                    drop_counter.count(meta.port_prio_index);
                } else if (standard_metadata.egress_spec != DROP_PORT) {
                    /*
                     * PFC XOFF: count the packet into its egress queue; at or above
                     * xoff, pause the neighbour it came from (priority = queue)
                     * unless a pause younger than `refresh` is outstanding. A new
                     * pause puts the neighbour on the queue's waiting list (this
                     * packet is in the queue, so the queue will dequeue again); a
                     * refresh only repeats the XOFF and keeps the list untouched.
                     */
                    if (pfc_thresholds.apply().hit) {
                        bit<32> queue = ((bit<32>)standard_metadata.egress_spec << 3)
                                        + (bit<32>)standard_metadata.priority;
                        bit<48> now = standard_metadata.ingress_global_timestamp;
                        bit<19> occupancy;
                        bit<1> paused;
                        bit<48> last_xoff;
                        queue_occupancy.read(occupancy, queue);
                        occupancy = occupancy + 1;
                        queue_occupancy.write(queue, occupancy);
                        pfc_paused.read(paused, meta.port_prio_index);
                        pfc_last_xoff.read(last_xoff, meta.port_prio_index);
                        if (occupancy >= meta.pfc_xoff
                                && (paused == 0 || now - last_xoff >= meta.pfc_refresh)) {
                            if (paused == 0) {
                                bit<10> head;
                                pfc_waiters.read(head, queue);
                                pfc_next_waiter.write(meta.port_prio_index, head);
                                pfc_waiters.write(queue,
                                    (bit<10>)standard_metadata.ingress_port + 1);
                                pfc_paused.write(meta.port_prio_index, 1);
                            }
                            pfc_last_xoff.write(meta.port_prio_index, now);
                            send_xoff();
                        }
                    }
                }
            }
        } else {
            /* An L3 fabric: anything else (ARP included) is not forwarded. */
            drop();
            drop_counter.count((bit<32>)standard_metadata.ingress_port << 3);
        }
    }
}

control RoceEgress(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {

    /* Per (egress port, queue) counters, index port * 8 + priority. */
    counter(PORT_PRIO_SLOTS, CounterType.packets_and_bytes) tx_counter;
    counter(PORT_PRIO_SLOTS, CounterType.packets) pfc_tx_counter;
    counter(PORT_PRIO_SLOTS, CounterType.packets) ecn_mark_counter;

    action set_src_mac(bit<48> mac) {
        hdr.ethernet.src_addr = mac;
    }

    /* The MAC address of each port, the source of routed and PFC frames. */
    table port_mac {
        key = { standard_metadata.egress_port: exact; }
        actions = { set_src_mac; NoAction; }
        default_action = NoAction();
        size = NUM_PORTS;
    }

    action set_ecn_threshold(bit<19> depth) {
        meta.ecn_threshold = depth;
    }

    /* ECN marking is off for queues without an entry (the default: DCQCN off). */
    table ecn_config {
        key = {
            standard_metadata.egress_port: exact;
            standard_metadata.priority: exact;
        }
        actions = { set_ecn_threshold; NoAction; }
        default_action = NoAction();
        size = PORT_PRIO_SLOTS;
    }

    /* E2E-clone this packet; the clone leaves by port `target` as an XON frame for
     * priority meta.pfc_prio, still naming its queue (meta.pfc_queue_port). */
    action send_xon(bit<9> target) {
        meta.pfc_quanta = 0;
        clone_preserving_field_list(CloneType.E2E,
                                    PFC_MIRROR_BASE + (bit<32>)target,
                                    PFC_FIELD_LIST);
    }

    /*
     * Rewrite a clone into a 60-byte PFC frame: priority meta.pfc_prio, pause time
     * meta.pfc_quanta (0 = XON). port_mac sets the source MAC afterwards.
     */
    action build_pfc_frame() {
        hdr.vlan.setInvalid();
        hdr.ipv4.setInvalid();
        hdr.udp.setInvalid();
        hdr.bth.setInvalid();
        hdr.reth.setInvalid();
        hdr.aeth.setInvalid();
        hdr.ethernet.dst_addr = MAC_CTRL_DST;
        hdr.ethernet.ether_type = ETHERTYPE_MAC_CTRL;
        hdr.pfc.setValid();
        hdr.pfc.opcode = MAC_CTRL_OPCODE_PFC;
        hdr.pfc.class_enable_vector = 16w1 << meta.pfc_prio;
        hdr.pfc.pause_time0 = 0;
        hdr.pfc.pause_time1 = 0;
        hdr.pfc.pause_time2 = 0;
        hdr.pfc.pause_time3 = 0;
        hdr.pfc.pause_time4 = 0;
        hdr.pfc.pause_time5 = 0;
        hdr.pfc.pause_time6 = 0;
        hdr.pfc.pause_time7 = 0;
        hdr.pfc_pad.setValid();
        hdr.pfc_pad.zeros = 0;
        /* 14 (Ethernet) + 20 (PFC) + 26 (pad) = 60 bytes: drop the clone's payload */
        truncate(32w60);
    }

    apply {
        /* release the next neighbour waiting on queue (meta.pfc_queue_port, pfc_prio)? */
        bool release = false;

        if (standard_metadata.instance_type == INSTANCE_TYPE_I2E_CLONE
                || standard_metadata.instance_type == INSTANCE_TYPE_E2E_CLONE) {
            build_pfc_frame();
            if (meta.pfc_prio == 0) { hdr.pfc.pause_time0 = meta.pfc_quanta; }
            if (meta.pfc_prio == 1) { hdr.pfc.pause_time1 = meta.pfc_quanta; }
            if (meta.pfc_prio == 2) { hdr.pfc.pause_time2 = meta.pfc_quanta; }
            if (meta.pfc_prio == 3) { hdr.pfc.pause_time3 = meta.pfc_quanta; }
            if (meta.pfc_prio == 4) { hdr.pfc.pause_time4 = meta.pfc_quanta; }
            if (meta.pfc_prio == 5) { hdr.pfc.pause_time5 = meta.pfc_quanta; }
            if (meta.pfc_prio == 6) { hdr.pfc.pause_time6 = meta.pfc_quanta; }
            if (meta.pfc_prio == 7) { hdr.pfc.pause_time7 = meta.pfc_quanta; }
            pfc_tx_counter.count(((bit<32>)standard_metadata.egress_port << 3)
                                 + (bit<32>)meta.pfc_prio);
            /*
             * An XON frame continues the release of its queue: while the queue is
             * still below xon, every XON frame releases one more waiter, so a queue
             * that has gone idle still resumes all the neighbours it paused.
             */
            if (meta.pfc_quanta == 0) {
                bit<19> occupancy;
                queue_occupancy.read(occupancy, ((bit<32>)meta.pfc_queue_port << 3)
                                                + (bit<32>)meta.pfc_prio);
                release = occupancy < meta.pfc_xon;
            }
        } else {
            meta.port_prio_index = ((bit<32>)standard_metadata.egress_port << 3)
                                   + (bit<32>)standard_metadata.priority;
            tx_counter.count(meta.port_prio_index);

            /* ECN: ECT(0), ECT(1) or CE packets get CE above the queue threshold. */
            if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0) {
                if (ecn_config.apply().hit) {
                    if (standard_metadata.enq_qdepth > meta.ecn_threshold) {
                        hdr.ipv4.ecn = 3;
                        ecn_mark_counter.count(meta.port_prio_index);
                    }
                }
            }

            /*
             * PFC XON for this queue Q = (egress port, prio): re-synchronise the
             * occupancy with the real depth; below xon, release the neighbour at the
             * head of Q's waiting list (its XON frame then releases the next one).
             */
            if (meta.pfc_enabled == 1) {
                queue_occupancy.write(meta.port_prio_index, standard_metadata.deq_qdepth);
                meta.pfc_queue_port = standard_metadata.egress_port;
                meta.pfc_prio = standard_metadata.priority;
                release = standard_metadata.deq_qdepth < meta.pfc_xon;
            }
        }

        /* Pop the head of the queue's waiting list and send it an XON (one per packet). */
        if (release) {
            bit<32> queue = ((bit<32>)meta.pfc_queue_port << 3) + (bit<32>)meta.pfc_prio;
            bit<10> head;
            pfc_waiters.read(head, queue);
            if (head != 0) {
                bit<9> waiter = (bit<9>)(head - 1);
                bit<32> slot = ((bit<32>)waiter << 3) + (bit<32>)meta.pfc_prio;
                bit<10> next;
                pfc_next_waiter.read(next, slot);
                pfc_waiters.write(queue, next);
                pfc_paused.write(slot, 0);
                send_xon(waiter);
            }
        }
        /* the source MAC of both routed and PFC frames (a table applies once) */
        port_mac.apply();
    }
}

V1Switch(RoceParser(),
         RoceVerifyChecksum(),
         RoceIngress(),
         RoceEgress(),
         RoceComputeChecksum(),
         RoceDeparser()) main;
