"""Turn what a Mininet run produced into a :class:`RunResult`.

Inputs: the RNIC process reports (per workload, per host), switch counter samples taken
during the run (``show_stats_json``, every >= 200 ms), the kernel's interface counters
sampled every >= 10 ms (:mod:`mininet.sampler`), the final switch counters, runtime command
changes, and the run's start on CLOCK_MONOTONIC (every time in the result is ns since then:
RNICs and switches stamp with CLOCK_MONOTONIC).

    link a->b (b upper tier)  up:   a switch ? a's port tx : b's port rx  (hosts have no counters)
                              down: b's port tx
    bytes/packets: the switch's port counters (BMv2: the kernel's, same interface)
    utilisation per sample = (bytes + 24 * packets) * 8 / (rate * interval)   (wire overhead)
                             from the kernel samples (else the switch samples)
    flows' uplinks: computed by the leaf program, checked on the ports' bytes (mininet.uplinks)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from emulator.measure.flows import CollectiveRecord, FlowRecord, conservation
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
from emulator.runtime.mininet.sampler import KernelSeries
from emulator.runtime.mininet.uplinks import CliChange, UplinkPredictor, assign_uplinks
from emulator.runtime.result_parts import finished_meta, numeric
from emulator.topology import ResolvedTopology

WIRE_OVERHEAD_BYTES = 24


@dataclass
class Sample:
    """Switch counters at one instant (``t_ns`` since the run start)."""

    t_ns: int
    stats: dict[str, dict[str, Any]]


@dataclass
class RunRecord:
    """Everything collected during one run."""

    t0_mono_ns: int
    reports: list[dict[str, dict[str, Any]]] = field(default_factory=list)  # per workload
    samples: list[Sample] = field(default_factory=list)
    final: dict[str, dict[str, Any]] = field(default_factory=dict)
    program_counters: dict[str, dict[str, int]] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    changes: list[CliChange] = field(default_factory=list)  # switch_cli lines, for uplinks
    kernel: KernelSeries | None = None  # interface counters sampled every few ms
    end_ns: int = 0


def _port_counter(stats: Mapping[str, Any], port: int, key: str) -> int:
    return int(stats.get("ports", {}).get(str(port), {}).get(key, 0))


def _counting_point(topo: ResolvedTopology, link: Any, up: bool) -> tuple[Any, ...]:
    """(src, src_port, dst, dst_port, node, port, rx|tx) of a link direction's counters."""
    src, sp, dst, dp = (
        (link.a, link.a_port, link.b, link.b_port) if up else (link.b, link.b_port, link.a, link.a_port)
    )  # fmt: skip
    if topo.is_host(src):  # hosts have no counters in the root namespace: count at the switch
        return src, sp, dst, dp, dst, dp, "rx"
    return src, sp, dst, dp, src, sp, "tx"


def kernel_counters(topo: ResolvedTopology) -> list[tuple[str, str]]:
    """The (interface, statistic) pairs the kernel sampler reads: bytes, packets per direction."""
    out = []
    for link in topo.links:
        for up in (True, False):
            *_, node, port, d = _counting_point(topo, link, up)
            intf = topo.switch(node).port(port).intf
            out += [(intf, f"{d}_bytes"), (intf, f"{d}_packets")]
    return out


def _utilisation(
    t_ns: Sequence[int], counts: Sequence[tuple[int, int]], rate_bps: float
) -> tuple[list[int], list[float]]:
    """Per interval between samples: (bytes + 24 x packets) x 8 / (rate x interval)."""
    times: list[int] = []
    util: list[float] = []
    prev_t, prev = 0, (0, 0)
    for t, cur in zip(t_ns, counts, strict=True):
        dt = t - prev_t
        if dt > 0:
            bits = ((cur[0] - prev[0]) + WIRE_OVERHEAD_BYTES * (cur[1] - prev[1])) * 8
            times.append(t)
            util.append(max(0.0, bits * 1e9 / (rate_bps * dt)))
        prev_t, prev = t, cur
    return times, util


def _links(topo: ResolvedTopology, rec: RunRecord) -> list[LinkSeries]:
    kern = rec.kernel if rec.kernel is not None and rec.kernel.rows else None
    out = []
    for link in topo.links:
        for up in (True, False):
            src, sp, dst, dp, node, port, d = _counting_point(topo, link, up)
            kb, kp = f"{d}_bytes", f"{d}_pkts"
            intf = topo.switch(node).port(port).intf
            kb_col = kern.column(intf, kb) if kern else None
            kp_col = kern.column(intf, f"{d}_packets") if kern else None
            if kern is not None and kb_col is not None and kp_col is not None:
                counts = list(zip(kb_col, kp_col, strict=True))
                t_ns, util = _utilisation(kern.t_ns, counts, link.rate_bps)
            else:
                counts = [
                    (_port_counter(smp.stats.get(node, {}), port, kb),
                     _port_counter(smp.stats.get(node, {}), port, kp))
                    for smp in rec.samples
                ]  # fmt: skip
                t_ns, util = _utilisation([smp.t_ns for smp in rec.samples], counts, link.rate_bps)
            if rec.final.get(node):  # the switch's own port counters are the totals
                total_b = _port_counter(rec.final[node], port, kb)
                total_p = _port_counter(rec.final[node], port, kp)
            else:  # BMv2: no process counters, the kernel's (or nothing)
                total_b, total_p = counts[-1] if counts else (0, 0)
            out.append(
                LinkSeries(
                    src=src,
                    src_port=sp,
                    dst=dst,
                    dst_port=dp,
                    kind=link.kind,
                    up=up,
                    rate_bps=float(link.rate_bps),
                    bytes=total_b,
                    packets=total_p,
                    t_ns=t_ns,
                    utilisation=util,
                )
            )
    return out


def _queues(rec: RunRecord) -> list[QueueSeries]:
    out = []
    for sw, stats in sorted(rec.final.items()):
        for key, q in sorted(stats.get("queues", {}).items()):
            if not (q.get("enqueued") or q.get("dropped")):
                continue
            port, prio = (int(x) for x in key.split(":"))
            depths = [int(s.stats.get(sw, {}).get("queues", {}).get(key, {}).get("depth", 0))
                      for s in rec.samples]  # fmt: skip
            out.append(
                QueueSeries(
                    switch=sw,
                    port=port,
                    priority=prio,
                    t_ns=[s.t_ns for s in rec.samples],
                    depth=depths,
                    max_depth=max([*depths, int(q.get("depth", 0))]),
                    enqueued=int(q["enqueued"]),
                    dequeued=int(q["dequeued"]),
                    dropped=int(q["dropped"]),
                )
            )
    return out


def _collectives(rec: RunRecord) -> list[CollectiveResult]:
    out = []
    for reports in rec.reports:
        recs = [r["collective"] for r in reports.values() if r.get("collective")]
        if not recs:
            continue
        first = recs[0]
        merged = CollectiveRecord(
            name=first["name"], collective=first["collective"], algorithm=first["algorithm"],
            ranks=int(first["ranks"]), size_bytes=int(first["size_bytes"]),
            iterations=int(first["iterations"]),
            start_ns=min(int(r["start_ns"]) for r in recs) - rec.t0_mono_ns,
            end_ns=max(int(r["end_ns"]) for r in recs) - rec.t0_mono_ns,
            busbw_factor=float(first["busbw_factor"]), num_qps=int(first.get("num_qps", 1)),
        )  # fmt: skip
        out.append(CollectiveResult.from_record(merged))
    return out


def _flows(rec: RunRecord) -> list[FlowResult]:
    out = []
    for reports in rec.reports:
        for rep in reports.values():
            for f in rep.get("flows", []):
                fr = FlowRecord(
                    src=f["src"], dst=f["dst"], flow_id=f["flow_id"], bytes=int(f["bytes"]),
                    start_ns=int(f["start_ns"]) - rec.t0_mono_ns,
                    end_ns=int(f["end_ns"]) - rec.t0_mono_ns,
                )  # fmt: skip
                out.append(FlowResult.from_record(fr))
    return out


def _switch_counters(stats: Mapping[str, Any]) -> dict[str, float]:
    c = numeric(stats.get("switch", {}))
    for key in ("rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes", "tx_errors", "pfc_tx"):
        c[key] = float(sum(p.get(key, 0) for p in stats.get("ports", {}).values()))
    c["queue_dropped"] = float(sum(q.get("dropped", 0) for q in stats.get("queues", {}).values()))
    c["rx_errors"] = float(stats.get("rx_errors", 0))
    for key in ("stalls", "stalled_ns"):  # InfiniBand credits (emulator.ib.linkfc)
        if stats.get("credits"):
            c[f"credit_{key}"] = float(sum(p[key] for p in stats["credits"].values()))
    return c


def _data_drops(
    topo: ResolvedTopology,
    final: Mapping[str, Mapping[str, Any]],
    switches: dict[str, dict[str, float]],
) -> None:
    """Set ``pfc_rx`` and ``data_drops`` (P4 drops less the PFC frames the program consumed).

    A switch receives the PFC frames its switch neighbours sent on the facing port (hosts
    send none); a program that drops received PFC frames without counting them in its drop
    counter (roce_fabric.p4) consumed at most ``dropped - p4_drops`` of them.
    """
    pfc_rx = dict.fromkeys(switches, 0.0)
    for link in topo.links:
        for src, sp, dst in ((link.a, link.a_port, link.b), (link.b, link.b_port, link.a)):
            if dst in pfc_rx and not topo.is_host(src):
                pfc_rx[dst] += _port_counter(final.get(src, {}), sp, "pfc_tx")
    for sw, c in switches.items():
        dropped = c.get("dropped", 0.0)
        uncounted = dropped - c["p4_drops"] if "p4_drops" in c else dropped
        c["pfc_rx"] = pfc_rx[sw]
        c["data_drops"] = dropped - max(0.0, min(pfc_rx[sw], uncounted))


def measured_flow_uplinks(
    flows: list[FlowResult], measured: Mapping[tuple[str, int], Mapping[str, int]]
) -> tuple[list[FlowResult], list[str]]:
    """Flows with the uplinks their data frames were seen on (``uplinks_source`` measured)."""
    out = []
    for f in flows:
        try:
            qpn = int(f.flow_id.split("->")[-1], 16)
        except ValueError:
            out.append(f)
            continue
        ups = sorted(measured.get((f.dst, qpn), {}))
        out.append(f.model_copy(update={"uplinks": ups, "uplinks_source": "measured"}))
    seen = sum(1 for f in out if f.uplinks)
    note = f"uplinks measured from frames captured on leaf uplinks ({seen}/{len(out)} flows seen)"
    return out, [note]


def build_result(
    topo: ResolvedTopology,
    rec: RunRecord,
    meta: RunMeta,
    incomplete: Sequence[str] = (),
    uplinks: UplinkPredictor | None = None,
    *,
    measured: Mapping[tuple[str, int], Mapping[str, int]] | None = None,
) -> RunResult:
    """Assemble the RunResult of a Mininet run. FlowResult.uplinks: ``measured`` (bytes per
    flow and uplink captured on the wire, mininet.capture) when given, else computed by
    ``uplinks`` (the leaf program, labelled "predicted")."""
    hosts = {h: rep.get("counters", {}) for reports in rec.reports for h, rep in reports.items()}
    switches = {sw: _switch_counters(st) for sw, st in rec.final.items()}
    for sw, pc in rec.program_counters.items():
        c = switches.setdefault(sw, _switch_counters({}))
        c.update({k: float(v) for k, v in pc.items()})
        if not rec.final.get(sw):  # BMv2: no process counters, use what P4 counted
            c["dropped"] = float(pc.get("p4_drops", 0))
            c["pfc_tx"] = float(pc.get("p4_pfc_tx", 0))
    _data_drops(topo, rec.final, switches)
    sent = sum(int(c.get("tx_pkts", 0)) for c in hosts.values())
    received = sum(int(c.get("rx_pkts", 0)) for c in hosts.values())
    pfc_in = sum(int(c.get("pause_frames", 0)) for c in hosts.values())
    drops = int(
        sum(c["data_drops"] + c.get("tail_dropped", 0) + c.get("unknown_port", 0)
            + c.get("errors", 0) + c["tx_errors"] for c in switches.values())
    )  # fmt: skip
    in_flight = sum(
        int(q.get("depth", 0)) for st in rec.final.values() for q in st.get("queues", {}).values()
    ) + sum(int(rep.get("credit_held", 0)) for reps in rec.reports for rep in reps.values())
    cons = conservation(sent, received - pfc_in, drops, in_flight)
    totals = Totals(
        packets_sent=sent,
        packets_delivered=received - pfc_in,
        drops=drops,
        pause_frames=int(sum(c["pfc_tx"] for c in switches.values())),
        pause_frames_hosts=sum(int(c.get("pauses_honoured", 0)) for c in hosts.values()),
        retransmissions=sum(int(c.get("retransmitted_pkts", 0)) for c in hosts.values()),
        naks=sum(int(c.get("naks_sent", 0)) for c in hosts.values()),
        ecn_marks=int(sum(c.get("p4_ecn_marks", 0) for c in switches.values())),
    )
    pauses = [
        PauseEvent(
            t_ns=int(t) - rec.t0_mono_ns, node=sw, port=int(p), priority=int(c), quanta=int(q)
        )
        for sw, st in sorted(rec.final.items())
        for t, p, c, q in st.get("pfc_events", [])
    ]
    if measured is not None:
        flows, notes = measured_flow_uplinks(_flows(rec), measured)
    else:
        flows, notes = assign_uplinks(uplinks, _flows(rec), rec.final, rec.changes)
    return RunResult(
        meta=finished_meta(meta, rec.end_ns, incomplete),
        flows=flows,
        collectives=_collectives(rec),
        links=_links(topo, rec),
        queues=_queues(rec),
        pauses=sorted(pauses, key=lambda e: e.t_ns),
        cts_latency_ns=[int(x) for c in hosts.values() for x in c.get("cts_latency_ns", [])],
        hosts={h: numeric(c) for h, c in hosts.items()},
        switches=switches,
        totals=totals,
        conservation=ConservationResult.from_record(cons),
        events=[*rec.events, *notes],
    )
