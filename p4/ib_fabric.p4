/*
 * ib_fabric.p4 -- the InfiniBand switch (v1model), one program for every role.
 *
 * Frames: Ethernet shim (0x88B5) | LRH | BTH ... (include/ib_headers.p4, docs/ib.md).
 * The control plane (emulator/ib/commands.py) fills the tables from OpenSM's output.
 *
 *  ingress  not IB / VL15 / no LFT entry -> drop (management traffic is not modelled)
 *           sl2vl: LRH.SL -> VL  => LRH.VL and standard_metadata.priority (TM queue = VL)
 *           lft: exact DLID -> output port (OpenSM's linear forwarding table)
 *           adaptive routing (set_config(1) and ar_count[DLID] > 0): among the DLID's
 *             equal-cost candidate ports (ar_ports[DLID * 8 + i]), the one whose egress
 *             occupancy is lowest; scan starts at a rotating offset so ties spread
 *  egress   port_occupancy[port] := deq_qdepth (re-synchronised at every dequeue)
 *
 * port_occupancy[p]: packets queued for p, +1 when ingress picks p, reset to the
 * queue depth the TM reports when p dequeues (as the RoCE program's queue_occupancy).
 */
#include <core.p4>
#include <v1model.p4>

#include "include/ib_headers.p4"

register<bit<32>>(IB_PORTS) port_occupancy;
register<bit<8>>(IB_LIDS) ar_count;
register<bit<9>>(AR_SLOTS) ar_ports;
register<bit<8>>(1) ar_rotor;
register<bit<9>>(IB_LIDS) ar_last;     /* port the DLID's previous packet took, 0 = none */

parser IbParser(packet_in pkt, out ib_headers_t hdr, inout ib_metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IB_SHIM: parse_lrh;
            default: accept;
        }
    }
    state parse_lrh {
        pkt.extract(hdr.lrh);
        transition select(hdr.lrh.lnh) {
            LNH_IBA_LOCAL: parse_bth;
            default: accept;
        }
    }
    state parse_bth {
        pkt.extract(hdr.bth);
        transition accept;
    }
}

control IbVerify(inout ib_headers_t hdr, inout ib_metadata_t meta) {
    apply { }
}

/* One adaptive-routing candidate: the K-th port after the rotating start. */
#define AR_CONSIDER(K) \
    if (K < meta.ar_n) { \
        idx = start + K; \
        if (idx >= meta.ar_n) { idx = idx - meta.ar_n; } \
        ar_ports.read(cand, base + (bit<32>)idx); \
        port_occupancy.read(occ, (bit<32>)cand); \
        if (occ < meta.ar_best) { meta.ar_best = occ; best = cand; } \
    }

control IbIngress(inout ib_headers_t hdr, inout ib_metadata_t meta,
                  inout standard_metadata_t standard_metadata) {

    counter(IB_PORTS, CounterType.packets_and_bytes) rx_counter;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_config(bit<1> adaptive) {
        meta.adaptive = adaptive;
    }
    table ib_config {
        key = { }
        actions = { set_config; }
        default_action = set_config(0);
    }

    action set_vl(bit<4> vl) {
        hdr.lrh.vl = vl;
        standard_metadata.priority = (bit<3>)vl;
    }
    table sl2vl {
        key = { hdr.lrh.sl : exact; }
        actions = { set_vl; drop; }
        default_action = set_vl(0);
        size = 16;
    }

    action forward(bit<9> port) {
        standard_metadata.egress_spec = port;
        meta.routed = 1;
    }
    table lft {
        key = { hdr.lrh.dlid : exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = IB_LIDS;
    }

    apply {
        rx_counter.count((bit<32>)standard_metadata.ingress_port);
        if (!hdr.lrh.isValid() || hdr.lrh.vl == VL_MANAGEMENT) {
            drop();
            return;
        }
        ib_config.apply();
        sl2vl.apply();
        lft.apply();
        if (meta.routed == 0) {
            return;
        }
        if (meta.adaptive == 1) {
            ar_count.read(meta.ar_n, (bit<32>)hdr.lrh.dlid);
            if (meta.ar_n > 1) {
                bit<8> start;
                ar_rotor.read(start, 0);
                if (start >= meta.ar_n) { start = 0; }
                bit<8> next = start + 1;
                ar_rotor.write(0, next);
                bit<32> base = ((bit<32>)hdr.lrh.dlid) << 3;
                bit<8> idx = 0;
                bit<9> cand = 0;
                bit<32> occ = 0;
                bit<9> best = standard_metadata.egress_spec;
                meta.ar_best = 32w0xFFFFFFFF;
                ar_last.read(cand, (bit<32>)hdr.lrh.dlid);
                if (cand != 0) {   /* stay on the last port unless another is emptier */
                    best = cand;
                    port_occupancy.read(meta.ar_best, (bit<32>)cand);
                }
                AR_CONSIDER(0)
                AR_CONSIDER(1)
                AR_CONSIDER(2)
                AR_CONSIDER(3)
                AR_CONSIDER(4)
                AR_CONSIDER(5)
                AR_CONSIDER(6)
                AR_CONSIDER(7)
                standard_metadata.egress_spec = best;
                ar_last.write((bit<32>)hdr.lrh.dlid, best);
            }
        }
        bit<32> queued;
        port_occupancy.read(queued, (bit<32>)standard_metadata.egress_spec);
        port_occupancy.write((bit<32>)standard_metadata.egress_spec, queued + 1);
    }
}

control IbEgress(inout ib_headers_t hdr, inout ib_metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    counter(IB_PORTS, CounterType.packets_and_bytes) tx_counter;
    apply {
        tx_counter.count((bit<32>)standard_metadata.egress_port);
        port_occupancy.write((bit<32>)standard_metadata.egress_port,
                             (bit<32>)standard_metadata.deq_qdepth);
    }
}

control IbCompute(inout ib_headers_t hdr, inout ib_metadata_t meta) {
    apply { }
}

control IbDeparser(packet_out pkt, in ib_headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.lrh);
        pkt.emit(hdr.bth);
    }
}

V1Switch(IbParser(), IbVerify(), IbIngress(), IbEgress(), IbCompute(), IbDeparser()) main;
