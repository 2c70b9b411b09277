"""Turn what a Mininet run produced into observation records (:mod:`emulator.measure`).

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

from emulator.measure.flowid import FlowId
from emulator.measure.flows import CollectiveRecord, FlowRecord
from emulator.measure.observations import (
    PROCESS_DROPS,
    FlowObs,
    HostObs,
    LinkObs,
    PauseObs,
    QueueObs,
    RunObservations,
    SwitchObs,
    numeric,
)
from emulator.runtime.mininet.sampler import KernelSeries
from emulator.runtime.mininet.uplinks import CliChange, UplinkPredictor, assign_uplinks
from emulator.topology import ResolvedTopology
from emulator.vocab import WIRE_OVERHEAD_BYTES


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


def _links(topo: ResolvedTopology, rec: RunRecord) -> list[LinkObs]:
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
                LinkObs(src, sp, dst, dp, link.kind, up, float(link.rate_bps), total_b, total_p,
                        t_ns, util)
            )  # fmt: skip
    return out


def _queues(rec: RunRecord) -> list[QueueObs]:
    out = []
    for sw, stats in sorted(rec.final.items()):
        for key, q in sorted(stats.get("queues", {}).items()):
            if not (q.get("enqueued") or q.get("dropped")):
                continue
            port, prio = (int(x) for x in key.split(":"))
            depths = [int(s.stats.get(sw, {}).get("queues", {}).get(key, {}).get("depth", 0))
                      for s in rec.samples]  # fmt: skip
            out.append(
                QueueObs(sw, port, prio, [s.t_ns for s in rec.samples], depths,
                         max([*depths, int(q.get("depth", 0))]), int(q["enqueued"]),
                         int(q["dequeued"]), int(q["dropped"]))
            )  # fmt: skip
    return out


def _collectives(rec: RunRecord) -> list[CollectiveRecord]:
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
        out.append(merged)
    return out


def _flows(rec: RunRecord) -> list[FlowRecord]:
    return [
        FlowRecord(
            src=f["src"], dst=f["dst"], flow_id=FlowId.parse(f["flow_id"]),
            bytes=int(f["bytes"]), start_ns=int(f["start_ns"]) - rec.t0_mono_ns,
            end_ns=int(f["end_ns"]) - rec.t0_mono_ns,
        )
        for reports in rec.reports
        for rep in reports.values()
        for f in rep.get("flows", [])
    ]  # fmt: skip


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


def _pfc_rx(topo: ResolvedTopology, final: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """PFC frames each switch received: what its switch neighbours sent on the facing port
    (hosts send none)."""
    pfc_rx: dict[str, float] = {}
    for link in topo.links:
        for src, sp, dst in ((link.a, link.a_port, link.b), (link.b, link.b_port, link.a)):
            if not topo.is_host(src) and not topo.is_host(dst):
                pfc_rx[dst] = pfc_rx.get(dst, 0.0) + _port_counter(final.get(src, {}), sp, "pfc_tx")
    return pfc_rx


def _switches(topo: ResolvedTopology, rec: RunRecord) -> list[SwitchObs]:
    """Each switch's counters: its process's (BMv2: none), its program's, ``pfc_rx``."""
    switches = {sw: _switch_counters(st) for sw, st in rec.final.items()}
    for sw, pc in rec.program_counters.items():
        c = switches.setdefault(sw, _switch_counters({}))
        c.update({k: float(v) for k, v in pc.items()})
        if not rec.final.get(sw):  # BMv2: no process counters, use what P4 counted
            c["dropped"] = float(pc.get("p4_drops", 0))
            c["pfc_tx"] = float(pc.get("p4_pfc_tx", 0))
    pfc_rx = _pfc_rx(topo, rec.final)
    out = []
    for sw, c in switches.items():
        c["pfc_rx"] = pfc_rx.get(sw, 0.0)
        queued = sum(
            int(q.get("depth", 0)) for q in rec.final.get(sw, {}).get("queues", {}).values()
        )
        out.append(SwitchObs(sw, c, queued=queued))  # PFC frames consumed: not seen, bounded
    return out


def _hosts(rec: RunRecord) -> list[HostObs]:
    hosts = {h: rep.get("counters", {}) for reports in rec.reports for h, rep in reports.items()}
    return [HostObs(h, c) for h, c in hosts.items()]


def qp_errors(rec: RunRecord) -> list[dict[str, Any]]:
    """QPs whose retries ran out, from the RNIC processes' reports, on the run clock (the
    records the virtual runtime gives: host, flow id, error, ``t_ns``)."""
    out = [
        {**e, "t_ns": None if e.get("t_ns") is None else int(e["t_ns"]) - rec.t0_mono_ns}
        for reports in rec.reports
        for _host, rep in sorted(reports.items())
        for e in rep.get("qp_errors", [])
    ]
    return sorted(out, key=lambda e: (e["host"], e["flow_id"]))


def rnic_events(rec: RunRecord) -> dict[str, list[tuple[int, int]]]:
    """When the RNICs retransmitted and timed out, on the run clock: ``retransmissions`` and
    ``timeouts`` as sorted ``(t_ns, n)`` from every process's event log (host_faults)."""
    out: dict[str, list[tuple[int, int]]] = {"retransmissions": [], "timeouts": []}
    for reports in rec.reports:
        for rep in reports.values():
            for key, log in out.items():
                log += [
                    (int(t) - rec.t0_mono_ns, int(n)) for t, n in rep.get("events", {}).get(key, [])
                ]
    return {k: sorted(v) for k, v in out.items()}


def host_impairments(rec: RunRecord) -> dict[int, tuple[int, int]]:
    """Fault index -> (lost, corrupted) data frames the RNIC processes' hosts sent."""
    out: dict[int, tuple[int, int]] = {}
    for reports in rec.reports:
        for rep in reports.values():
            for fault, c in rep.get("impairments", {}).items():
                lost, bad = out.get(int(fault), (0, 0))
                out[int(fault)] = (lost + int(c["lost"]), bad + int(c["corrupted"]))
    return out


def _pauses(rec: RunRecord) -> list[PauseObs]:
    pauses = [
        PauseObs(int(t) - rec.t0_mono_ns, sw, int(p), int(c), int(q))
        for sw, st in sorted(rec.final.items())
        for t, p, c, q in st.get("pfc_events", [])
    ]
    return sorted(pauses, key=lambda e: e.t_ns)


def measured_flow_uplinks(
    flows: Sequence[FlowRecord], measured: Mapping[tuple[str, int], Mapping[str, int]]
) -> tuple[list[FlowObs], list[str]]:
    """Flows with the uplinks their data frames were seen on (``uplinks_source`` measured)."""
    out = [
        FlowObs(f, sorted(measured.get((f.dst, f.flow_id.dst_qpn), {})), "measured") for f in flows
    ]
    seen = sum(1 for f in out if f.uplinks)
    note = f"uplinks measured from frames captured on leaf uplinks ({seen}/{len(out)} flows seen)"
    return out, [note]


def observations(
    topo: ResolvedTopology,
    rec: RunRecord,
    incomplete: Sequence[str] = (),
    uplinks: UplinkPredictor | None = None,
    *,
    measured: Mapping[tuple[str, int], Mapping[str, int]] | None = None,
) -> RunObservations:
    """What a Mininet run observed. Flows' uplinks: ``measured`` (bytes per flow and uplink
    captured on the wire, mininet.capture) when given, else computed by ``uplinks`` (the
    leaf program, labelled "predicted")."""
    if measured is not None:
        flows, notes = measured_flow_uplinks(_flows(rec), measured)
    else:
        flows, notes = assign_uplinks(uplinks, _flows(rec), rec.final, rec.changes)
    return RunObservations(
        end_ns=rec.end_ns,
        hosts=_hosts(rec),
        switches=_switches(topo, rec),
        links=_links(topo, rec),
        queues=_queues(rec),
        pauses=_pauses(rec),
        flows=flows,
        collectives=_collectives(rec),
        accounting=PROCESS_DROPS,
        # an HCA's frame waiting for IB credits: sent by the RNIC, not yet on a wire
        wire_in_flight=sum(int(r.get("credit_held", 0)) for rs in rec.reports for r in rs.values()),
        events=[*rec.events, *notes],
        incomplete=incomplete,
    )
