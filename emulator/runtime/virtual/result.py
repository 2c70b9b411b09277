"""Turn a virtual-time run's state into a :class:`RunResult` (the schema Mininet fills too).

Packet conservation counts RNIC frames only::

    sent (RNIC tx)  =  delivered (RNIC rx - PFC frames)
                     + drops (P4 drops - PFC frames the program consumed
                              + TM tail drops - switch-generated clones tail-dropped
                              + unknown port + pipeline errors + failed-link losses)
                     + in flight (data frames on wires + queued frames - queued clones)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.measure.flows import conservation
from emulator.measure.results import (
    CollectiveResult,
    ConservationResult,
    FlowResult,
    LinkSeries,
    PauseEvent,
    QueueSeries,
    RunMeta,
    RunResult,
    Totals,
)
from emulator.runtime.result_parts import P4_COUNTERS, finished_meta, numeric

if TYPE_CHECKING:
    from emulator.runtime.virtual.nodes import SwitchBox
    from emulator.runtime.virtual.runtime import VirtualRuntime

DROP_STATS = ("tail_dropped", "unknown_port", "errors", "assert_failures", "reentry_limit")


def _data_drops(box: SwitchBox) -> int:
    """Frames of RNIC origin this switch dropped (its own PFC frames excluded)."""
    st = box.sw.stats
    p4 = st["dropped"] - box.pfc_consumed
    return p4 + sum(st[k] for k in DROP_STATS) - box.tm.clone_drops


def _switch_counters(rt: VirtualRuntime, box: SwitchBox) -> dict[str, float]:
    c = numeric(box.sw.stats)
    out_links = [ld for ld in rt.links if ld.src == box.name]
    in_links = [ld for ld in rt.links if ld.dst == box.name]
    c["tx_pkts"] = float(sum(ld.packets for ld in out_links))
    c["tx_bytes"] = float(sum(ld.bytes for ld in out_links))
    c["rx_pkts"] = float(sum(ld.delivered for ld in in_links))
    c["rx_bytes"] = float(sum(ld.delivered_bytes for ld in in_links))
    c["tx_errors"] = float(sum(ld.dropped + ld.dropped_pfc for ld in out_links))
    c["pfc_tx"] = float(sum(ld.pfc_frames for ld in out_links))
    c["pfc_rx"] = float(box.pfc_rx)
    stats = box.tm.stats()
    c["queue_dropped"] = float(sum(q.dropped for q in stats.values()))
    c["paused_ns"] = float(sum(q.paused_ns for q in stats.values()))  # queue-ns under PFC
    c["data_drops"] = float(_data_drops(box))
    have = box.sw.counters
    for key, name in P4_COUNTERS.items():
        if name in have:
            c[key] = float(sum(have[name].packets))
    return c


def _queues(rt: VirtualRuntime) -> list[QueueSeries]:
    out = []
    for box in rt.boxes.values():
        stats = box.tm.stats()
        for port, prio in sorted(box.tm.active):
            t_ns, depth = rt.sampler.queues.get((box.name, port, prio), ([], []))
            q = stats[(port, prio)]
            out.append(
                QueueSeries(
                    switch=box.name,
                    port=port,
                    priority=prio,
                    t_ns=list(t_ns),
                    depth=list(depth),
                    max_depth=box.tm.active[(port, prio)],
                    enqueued=q.enqueued,
                    dequeued=q.dequeued,
                    dropped=q.dropped,
                )
            )
    return out


def _links(rt: VirtualRuntime) -> list[LinkSeries]:
    s = rt.sampler
    return [
        LinkSeries(
            src=ld.src,
            src_port=ld.src_port,
            dst=ld.dst,
            dst_port=ld.dst_port,
            kind=ld.kind,
            up=ld.up,
            rate_bps=ld.rate_bps,
            bytes=ld.bytes,
            packets=ld.packets,
            t_ns=list(s.t_ns),
            utilisation=list(s.util[i]),
        )
        for i, ld in enumerate(rt.links)
    ]


def _flows(rt: VirtualRuntime) -> list[FlowResult]:
    out = []
    for dep in rt.deployments:
        for rec in dep.flow_records():
            qpn = int(rec.flow_id.split("->")[-1], 16)
            ups = rt.ledger.uplinks(rec.dst, qpn)
            out.append(FlowResult.from_record(rec, ups, "measured"))
    return out


def build_result(rt: VirtualRuntime, meta: RunMeta) -> RunResult:
    """Assemble the RunResult of what ran so far (partial runs too)."""
    now = rt.engine.now
    rt.sampler.sample(now)
    nics = {name: hb.nic for name, hb in rt.hosts.items()}
    used = [h.name for h in rt.plan.topo.hosts if h.name in rt.workload_hosts]
    counters = {h: nics[h].counters.as_dict() for h in used}
    switches = {name: _switch_counters(rt, box) for name, box in rt.boxes.items()}
    if rt.credits is not None:  # InfiniBand VL credits: stalls per sending node
        rt.credits.add_counters(counters, switches)
    all_c = [n.counters for n in nics.values()]
    sent = sum(c.tx_pkts for c in all_c)
    delivered = sum(c.rx_pkts - c.pause_frames for c in all_c)
    link_drops = sum(ld.dropped for ld in rt.links)
    drops = link_drops + sum(_data_drops(b) for b in rt.boxes.values())
    in_flight = sum(ld.in_flight()[0] for ld in rt.links)
    for box in rt.boxes.values():
        in_flight += sum(box.tm.depth(p) for p in box.tm.ports()) - box.tm.clones_queued
    if rt.credits is not None:  # frames an HCA holds back for lack of credits
        in_flight += rt.credits.held_frames()
    has_ecn = any("p4_ecn_marks" in c for c in switches.values())
    totals = Totals(
        packets_sent=sent,
        packets_delivered=delivered,
        drops=drops,
        pause_frames=sum(ld.pfc_frames for ld in rt.links if ld.src in rt.boxes),
        pause_frames_hosts=sum(c.pauses_honoured for c in all_c),
        ecn_marks=int(sum(c.get("p4_ecn_marks", 0) for c in switches.values()))
        if has_ecn
        else rt.ledger.ce_delivered,
        retransmissions=sum(c.retransmitted_pkts for c in all_c),
        naks=sum(c.naks_sent for c in all_c),
    )
    collectives = []
    for dep in rt.deployments:
        rec = dep.record()
        if rec is not None:
            collectives.append(CollectiveResult.from_record(rec))
    incomplete = [f"workload {i} not done" for i, d in enumerate(rt.deployments) if not d.done]
    if not rt.deployments:
        incomplete.append("no workload was added")
    return RunResult(
        meta=finished_meta(meta, now, incomplete),
        flows=_flows(rt),
        collectives=collectives,
        links=_links(rt),
        queues=_queues(rt),
        pauses=[
            PauseEvent(t_ns=t, node=n, port=p, priority=c, quanta=q)
            for t, n, p, c, q in rt.ledger.pauses
        ],
        cts_latency_ns=[int(x) for h in used for x in nics[h].counters.cts_latency_ns],
        hosts={h: numeric(c) for h, c in counters.items()},
        switches=switches,
        totals=totals,
        conservation=ConservationResult.from_record(
            conservation(sent, delivered, drops, in_flight)
        ),
        events=list(rt.events),
    )
