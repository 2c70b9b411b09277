"""Assemble a run's :class:`RunResult` from what its runtime observed (both runtimes).

Packet conservation counts RNIC frames only::

    sent (RNIC tx)  =  delivered (RNIC rx - PFC frames received)
                     + drops (per switch: P4 drops - PFC frames the program consumed
                              + the runtime's other drop counters - the switch's own
                              copies dropped; + frames lost on failed wires)
                     + in flight (frames of RNIC origin queued + data frames on wires)

A switch's ``data_drops`` are its drops of RNIC frames: P4 drops less the PFC frames its
program consumed (counted exactly where the runtime saw each, else bounded by the frames
received and the drops the program did not count), plus what :class:`DropAccounting`
names. Totals, drops, ECN marks and conservation are computed here only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.measure.flows import conservation
from emulator.measure.observations import (
    DropAccounting,
    HostObs,
    RunObservations,
    SwitchObs,
    numeric,
)
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


def finished_meta(meta: RunMeta, end_ns: int, incomplete: Sequence[str]) -> RunMeta:
    """``meta`` stamped with the run's end; marked incomplete, with the reasons, when any.

    A reason the caller already set (``interrupted``, a wall-clock limit) stays first: it is
    why the workload did not finish."""
    update: dict[str, Any] = {"end_ns": end_ns}
    if incomplete:
        reasons = [meta.incomplete_reason] if meta.incomplete_reason else []
        update.update(complete=False, incomplete_reason="; ".join([*reasons, *incomplete]))
    return meta.model_copy(update=update)


def data_drops(sw: SwitchObs, accounting: DropAccounting) -> float:
    """Frames of RNIC origin ``sw`` dropped, as :class:`DropAccounting` counts them."""
    c = {**sw.counters, **sw.counters_after}
    dropped = c.get("dropped", 0.0)
    if sw.pfc_consumed is not None:
        consumed = float(sw.pfc_consumed)
    else:  # a program that drops PFC frames without counting them consumed at most these
        uncounted = dropped - c["p4_drops"] if "p4_drops" in c else dropped
        consumed = max(0.0, min(c.get("pfc_rx", 0.0), uncounted))
    other = sum(c.get(k, 0.0) for k in accounting.in_data_drops)
    return dropped - consumed + other - sw.copy_drops


def _totals(
    obs: RunObservations, hosts: Sequence[HostObs], switches: Mapping[str, Mapping[str, float]]
) -> tuple[Totals, ConservationResult]:
    def total(key: str) -> int:
        return sum(int(h.counters.get(key, 0)) for h in hosts)

    sent = total("tx_pkts")
    delivered = total("rx_pkts") - total("pause_frames")
    beside = obs.accounting.beside
    drops = obs.wire_drops + int(
        sum(c["data_drops"] + sum(c.get(k, 0.0) for k in beside) for c in switches.values())
    )
    in_flight = obs.wire_in_flight + sum(sw.queued for sw in obs.switches)
    if any("p4_ecn_marks" in c for c in switches.values()) or obs.ce_delivered is None:
        ecn = int(sum(c.get("p4_ecn_marks", 0.0) for c in switches.values()))
    else:  # no program counts marks: the CE-marked frames the RNICs received
        ecn = obs.ce_delivered
    totals = Totals(
        packets_sent=sent,
        packets_delivered=delivered,
        drops=drops,
        pause_frames=int(sum(c.get("pfc_tx", 0.0) for c in switches.values())),
        pause_frames_hosts=total("pauses_honoured"),
        ecn_marks=ecn,
        retransmissions=total("retransmitted_pkts"),
        naks=total("naks_sent"),
    )
    cons = conservation(sent, delivered, drops, in_flight)
    return totals, ConservationResult.from_record(cons)


def assemble(obs: RunObservations, meta: RunMeta) -> RunResult:
    """The RunResult of what ``obs`` recorded (partial runs too)."""
    switches = {
        sw.name: {**sw.counters, "data_drops": data_drops(sw, obs.accounting), **sw.counters_after}
        for sw in obs.switches
    }
    listed = [h for h in obs.hosts if h.listed]
    totals, cons = _totals(obs, obs.hosts, switches)
    return RunResult(
        meta=finished_meta(meta, obs.end_ns, obs.incomplete),
        flows=[
            FlowResult.from_record(f.record, list(f.uplinks), f.uplinks_source) for f in obs.flows
        ],
        collectives=[CollectiveResult.from_record(c) for c in obs.collectives],
        links=[
            LinkSeries(
                src=ln.src,
                src_port=ln.src_port,
                dst=ln.dst,
                dst_port=ln.dst_port,
                kind=ln.kind,
                up=ln.up,
                rate_bps=ln.rate_bps,
                bytes=ln.bytes,
                packets=ln.packets,
                t_ns=list(ln.t_ns),
                utilisation=list(ln.utilisation),
            )
            for ln in obs.links
        ],
        queues=[
            QueueSeries(
                switch=q.switch,
                port=q.port,
                priority=q.priority,
                t_ns=list(q.t_ns),
                depth=list(q.depth),
                max_depth=q.max_depth,
                enqueued=q.enqueued,
                dequeued=q.dequeued,
                dropped=q.dropped,
            )
            for q in obs.queues
        ],
        pauses=[
            PauseEvent(t_ns=p.t_ns, node=p.node, port=p.port, priority=p.priority, quanta=p.quanta)
            for p in obs.pauses
        ],
        cts_latency_ns=[int(x) for h in listed for x in h.counters.get("cts_latency_ns", ())],
        hosts={h.name: numeric(h.counters) for h in listed},
        switches=switches,
        totals=totals,
        conservation=cons,
        events=list(obs.events),
    )
