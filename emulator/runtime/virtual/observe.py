"""What a virtual-time run observed, as :mod:`emulator.measure.observations` records.

Everything is read from the runtime's own objects at the end (or at any point: partial
runs too): RNIC counters, each switch's counters and queue bookkeeping (``QueueWatch``),
each link direction's counters and the ``Sampler``'s series, the ``Ledger``'s PFC frames
and per-flow uplink bytes. :func:`emulator.measure.assemble.assemble` makes the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.measure.observations import (
    P4_COUNTERS,
    VIRTUAL_DROPS,
    FlowObs,
    HostObs,
    LinkObs,
    PauseObs,
    QueueObs,
    RunObservations,
    SwitchObs,
    numeric,
)

if TYPE_CHECKING:
    from emulator.runtime.virtual.nodes import SwitchBox
    from emulator.runtime.virtual.runtime import VirtualRuntime


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
    c["pfc_refreshes"] = float(box.tm.pfc_refresh.refreshes)  # of pfc_tx: the MAC's timer
    stats = box.tm.stats()
    c["queue_dropped"] = float(sum(q.dropped for q in stats.values()))
    c["paused_ns"] = float(sum(q.paused_ns for q in stats.values()))  # queue-ns under PFC
    return c


def _program_counters(box: SwitchBox) -> dict[str, float]:
    have = box.sw.counters
    return {k: float(sum(have[n].packets)) for k, n in P4_COUNTERS.items() if n in have}


def _switch(box: SwitchBox, counters: dict[str, float], after: dict[str, float]) -> SwitchObs:
    tm = box.tm
    queued = sum(tm.depth(p) for p in tm.ports()) - box.queues.copies_queued()
    return SwitchObs(
        box.name,
        counters,
        after,
        pfc_consumed=box.pfc_consumed,
        copy_drops=box.queues.copy_drops,
        queued=queued,
    )


def _queues(rt: VirtualRuntime) -> list[QueueObs]:
    out = []
    for box in rt.boxes.values():
        stats = box.tm.stats()
        active = box.queues.active
        for port, prio in sorted(active):
            t_ns, depth = rt.sampler.queues.get((box.name, port, prio), ((), ()))
            q = stats[(port, prio)]
            out.append(
                QueueObs(box.name, port, prio, t_ns, depth, active[(port, prio)],
                         q.enqueued, q.dequeued, q.dropped)
            )  # fmt: skip
    return out


def _links(rt: VirtualRuntime) -> list[LinkObs]:
    s = rt.sampler
    return [
        LinkObs(ld.src, ld.src_port, ld.dst, ld.dst_port, ld.kind, ld.up, ld.rate_bps,
                ld.bytes, ld.packets, s.t_ns, s.util[i])
        for i, ld in enumerate(rt.links)
    ]  # fmt: skip


def _flows(rt: VirtualRuntime) -> list[FlowObs]:
    return [
        FlowObs(rec, rt.ledger.uplinks(rec.dst, rec.flow_id.dst_qpn), "measured")
        for dep in rt.deployments
        for rec in dep.flow_records()
    ]


def observe(rt: VirtualRuntime) -> RunObservations:
    """The run so far, sampled once more at the current time."""
    now = rt.engine.now
    rt.sampler.sample(now)
    used = {h.name for h in rt.plan.topo.hosts if h.name in rt.workload_hosts}
    counters = {name: hb.nic.counters.as_dict() for name, hb in rt.hosts.items()}
    switches = {name: _switch_counters(rt, box) for name, box in rt.boxes.items()}
    after = {name: _program_counters(box) for name, box in rt.boxes.items()}
    in_flight = sum(ld.in_flight()[0] for ld in rt.links)
    if rt.credits is not None:  # InfiniBand VL credits: stalls per sending node
        rt.credits.add_counters({h: counters[h] for h in used}, after)
        in_flight += rt.credits.held_frames()  # frames an HCA holds back for lack of credits
    collectives = [r for r in (dep.record() for dep in rt.deployments) if r is not None]
    incomplete = [f"workload {i} not done" for i, d in enumerate(rt.deployments) if not d.done]
    if not rt.deployments:
        incomplete.append("no workload was added")
    return RunObservations(
        end_ns=now,
        hosts=[HostObs(h.name, counters[h.name], h.name in used) for h in rt.plan.topo.hosts],
        switches=[_switch(rt.boxes[name], c, after[name]) for name, c in switches.items()],
        links=_links(rt),
        queues=_queues(rt),
        pauses=[PauseObs(*p) for p in rt.ledger.pauses],
        flows=_flows(rt),
        collectives=collectives,
        accounting=VIRTUAL_DROPS,
        events=list(rt.events),
        incomplete=incomplete,
        wire_drops=sum(ld.dropped for ld in rt.links),
        wire_in_flight=in_flight,
        ce_delivered=rt.ledger.ce_delivered,
    )
