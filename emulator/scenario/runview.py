"""A flat, read-only view of one run: what metrics and reports read from a RunResult.

Reports and summary metrics read only this view, so the mapping from the RunResult schema
(``emulator.measure.results``) lives in one place, :func:`as_view`::

    RunResult ──as_view──► RunView ──┬──► metrics.summary_metrics
                                     └──► plots.* / report.write_report

Times are integer nanoseconds, sizes bytes, rates bit/s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from emulator.measure.flows import FlowRecord
from emulator.measure.results import (
    CollectiveResult,
    FlowResult,
    PauseEvent,
    RunResult,
)
from emulator.measure.results import LinkSeries as ResultLink

LinkKind = Literal["host", "up", "down"]


@dataclass(frozen=True)
class FlowView(FlowRecord):
    """One flow as reports show it (hosts by name); duration and goodput as FlowRecord."""

    finished: bool = True
    uplinks: tuple[str, ...] = ()  # leaf uplinks ("rtsw0:5") its data took

    @property
    def gbps(self) -> float:
        """Goodput in Gbit/s (0 for an instantaneous flow)."""
        return self.throughput_bps / 1e9


@dataclass(frozen=True)
class CollectiveView:
    """One collective: mean iteration time and nccl-tests bandwidths (bytes/s)."""

    name: str
    collective: str
    algorithm: str
    ranks: int
    size_bytes: int
    time_ns: float
    algbw_Bps: float
    busbw_Bps: float
    finished: bool = True


@dataclass(frozen=True)
class LinkSeries:
    """Bytes sent by ``node`` out of ``port`` (towards ``peer``) per time bin."""

    node: str
    port: int
    peer: str
    kind: LinkKind  # "up": towards the next tier; "down": towards a lower tier; "host"
    rate_bps: float
    tx_bytes: tuple[int, ...]
    total: int | None = None  # the link's byte counter, when known (else the bins' sum)

    @property
    def label(self) -> str:
        """``node:port->peer`` for plot axes."""
        return f"{self.node}:{self.port}->{self.peer}"

    @property
    def total_bytes(self) -> int:
        """Bytes over the whole run."""
        return self.total if self.total is not None else sum(self.tx_bytes)


@dataclass(frozen=True)
class QueueSeries:
    """Depth samples (packets) of one egress queue."""

    switch: str
    port: int
    priority: int
    t_ns: tuple[int, ...]
    depth: tuple[int, ...]

    @property
    def label(self) -> str:
        """``switch:port/prio`` for legends."""
        return f"{self.switch}:{self.port}/p{self.priority}"


@dataclass(frozen=True)
class PauseSeries:
    """Intervals during which ``node``'s ``port`` was paused on one priority."""

    node: str
    port: int
    priority: int
    intervals: tuple[tuple[int, int], ...]

    @property
    def label(self) -> str:
        """``node:port/prio`` for axes."""
        return f"{self.node}:{self.port}/p{self.priority}"


@dataclass(frozen=True)
class RunView:
    """Everything a report shows about one run."""

    scenario: str
    runtime: str = ""
    target: str = ""
    why: str = ""  # the runner's reason for this runtime/target choice
    seed: int | None = None
    complete: bool = True
    incomplete_reason: str = ""
    duration_ns: int = 0
    interval_ns: int = 0  # bin width of the link series
    flows: tuple[FlowView, ...] = ()
    collectives: tuple[CollectiveView, ...] = ()
    links: tuple[LinkSeries, ...] = ()
    queues: tuple[QueueSeries, ...] = ()
    pauses: tuple[PauseSeries, ...] = ()
    counters: Mapping[str, int] = field(default_factory=dict)
    cts_latency_ns: tuple[int, ...] = ()
    conservation_ok: bool | None = None
    host_leaf: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, str] = field(default_factory=dict)  # other metadata shown as-is
    #: (t_ns, label) of link events and route repairs (emulator.faults), for timelines
    fault_marks: tuple[tuple[int, str], ...] = ()

    @property
    def leaves(self) -> frozenset[str]:
        """Leaf switches: nodes sending on "up" links that no "up" link reaches."""
        ups = [s for s in self.links if s.kind == "up"]
        return frozenset(s.node for s in ups) - frozenset(s.peer for s in ups)

    @property
    def uplinks(self) -> tuple[LinkSeries, ...]:
        """Leaf-to-spine link series (the links whose balance ECMP decides)."""
        leaves = self.leaves
        return tuple(s for s in self.links if s.kind == "up" and s.node in leaves)


def _credit_counters(r: RunResult) -> dict[str, int]:
    """``credit_stall_max_ns``: the longest an RNIC waited for IB credits (IB runs only)."""
    stalls = [int(c["credit_stalled_ns"]) for c in r.hosts.values() if "credit_stalled_ns" in c]
    return {"credit_stall_max_ns": max(stalls)} if stalls else {}


def as_view(result: RunResult | Mapping[str, Any] | RunView) -> RunView:
    """Build a :class:`RunView` from a RunResult (model or its JSON dict); a view passes through."""
    if isinstance(result, RunView):
        return result
    r = result if isinstance(result, RunResult) else RunResult.model_validate(result)
    links = tuple(_link(s) for s in r.links)
    host_leaf = {s.dst: s.src for s in r.links if s.kind == "host" and not s.up}
    rates = {(s.src, s.src_port): s.rate_bps for s in r.links}
    interval = next(
        (s.t_ns[1] - s.t_ns[0] for s in r.links if len(s.t_ns) > 1),
        int(r.meta.settings.get("sample_interval_ns", 0) or 0),
    )
    names = _host_names(r)
    t = r.totals
    return RunView(
        scenario=r.meta.scenario,
        runtime=r.meta.runtime,
        target=r.meta.target,
        why=r.meta.why,
        seed=r.meta.seed,
        complete=r.meta.complete,
        incomplete_reason=r.meta.incomplete_reason or "",
        duration_ns=r.meta.end_ns,
        interval_ns=interval,
        flows=tuple(_flow(f, names) for f in r.flows),
        collectives=tuple(_collective(c) for c in r.collectives),
        links=links,
        queues=tuple(
            QueueSeries(q.switch, q.port, q.priority, tuple(q.t_ns), tuple(q.depth))
            for q in r.queues
        ),
        pauses=_pauses(r.pauses, rates, r.meta.end_ns),
        counters={
            "drops": t.drops,
            "pause_frames": t.pause_frames,
            "ecn_marks": t.ecn_marks,
            "retransmissions": t.retransmissions,
        }
        | _credit_counters(r),
        cts_latency_ns=tuple(r.cts_latency_ns),
        conservation_ok=None if r.conservation is None else r.conservation.ok,
        host_leaf=host_leaf,
        extra=_uplink_provenance(r),
        fault_marks=fault_marks(r.faults),
    )


def fault_marks(section: Mapping[str, Any] | None) -> tuple[tuple[int, str], ...]:
    """Timeline markers of a result's ``faults`` section: link down/up, repairs installed."""
    if not section:
        return ()
    marks = [
        (int(e["t_ns"]), f"{e['link']} {'up' if e['up'] else 'down'}")
        for e in section.get("link_events", [])
    ]
    marks += [(int(r["installed_ns"]), f"repair {r['link']}") for r in section.get("repairs", [])]
    for f in section.get("faults", []):  # impairments and stuck hosts: their window
        if f.get("until_ms") is not None:
            what = f"{f['kind']} {f['target']}"
            marks += [
                (round(f["at_ms"] * 1e6), f"{what} start"),
                (round(f["until_ms"] * 1e6), f"{what} end"),
            ]
    return tuple(sorted(marks))


#: how each ``FlowResult.uplinks_source`` is shown in reports
PROVENANCE = {
    "measured": "measured (data frames seen leaving the leaf uplinks)",
    "predicted": "INFERRED (the leaf's program run on a frame of each flow), not measured",
}


def _uplink_provenance(r: RunResult) -> dict[str, str]:
    """``{"flow uplinks": how they were obtained}`` when any flow has uplinks."""
    kinds = sorted({f.uplinks_source or "unknown" for f in r.flows if f.uplinks})
    if not kinds:
        return {}
    return {"flow uplinks": "; ".join(PROVENANCE.get(k, k) for k in kinds)}


def _host_names(r: RunResult) -> dict[str, str]:
    """IPv4 -> host name, from the topology spec stored in the run (flows name hosts by IP)."""
    if not r.meta.topology:
        return {}
    from emulator.topology import TopologyError, TopologySpec, resolve, spec_from_dict

    try:
        spec = spec_from_dict(r.meta.topology)
        if not isinstance(spec, TopologySpec):
            return {}
        topo = resolve(spec)
    except (TopologyError, TypeError, ValueError):
        return {}
    return {h.ip: h.name for h in topo.hosts}


def _flow(f: FlowResult, names: Mapping[str, str]) -> FlowView:
    return FlowView(
        src=names.get(f.src, f.src),
        dst=names.get(f.dst, f.dst),
        flow_id=f.flow_id,
        bytes=f.bytes,
        start_ns=f.start_ns,
        end_ns=f.end_ns,
        finished=f.end_ns >= f.start_ns and f.bytes > 0,
        uplinks=tuple(f.uplinks),
    )


def _collective(c: CollectiveResult) -> CollectiveView:
    return CollectiveView(
        name=c.name,
        collective=c.collective,
        algorithm=c.algorithm,
        ranks=c.ranks,
        size_bytes=c.size_bytes,
        time_ns=c.time_ns,
        algbw_Bps=c.algbw_Bps,
        busbw_Bps=c.busbw_Bps,
        finished=c.end_ns >= c.start_ns and c.time_ns > 0,
    )


def _link(s: ResultLink) -> LinkSeries:
    """One link direction; per-bin bytes from the utilisation samples, total from the counter."""
    kind: LinkKind = "host" if s.kind == "host" else ("up" if s.up else "down")
    t, util, rate = s.t_ns, s.utilisation, s.rate_bps
    # sample i covers t[i-1]..t[i]; the first sample (and any beyond t) covers nothing
    dts = [0, *(b - a for a, b in pairwise(t))][: len(util)]
    dts += [0] * (len(util) - len(dts))
    bins = tuple(int(u * rate * dt / 8e9) for u, dt in zip(util, dts, strict=True))
    return LinkSeries(s.src, s.src_port, s.dst, kind, rate, bins, total=s.bytes)


def _pauses(
    events: Sequence[PauseEvent], rates: Mapping[tuple[str, int], float], end_ns: int
) -> tuple[PauseSeries, ...]:
    """PFC frames -> paused intervals per (node, port, priority): XOFF opens/extends, XON ends.

    A pause lasts quanta x 512 bit times at the sending port's rate (IEEE 802.1Qbb).
    """
    by_key: dict[tuple[str, int, int], list[list[int]]] = {}
    for ev in sorted(events, key=lambda e: e.t_ns):
        spans = by_key.setdefault((ev.node, ev.port, ev.priority), [])
        open_span = spans[-1] if spans and spans[-1][1] > ev.t_ns else None
        if ev.quanta == 0:
            if open_span:
                open_span[1] = ev.t_ns
            continue
        rate = rates.get((ev.node, ev.port)) or 10e9
        until = ev.t_ns + int(ev.quanta * 512 * 1e9 / rate)
        if end_ns:
            until = min(until, max(end_ns, ev.t_ns))
        if open_span:
            open_span[1] = max(open_span[1], until)
        else:
            spans.append([ev.t_ns, until])
    return tuple(
        PauseSeries(node, port, prio, tuple((a, b) for a, b in spans))
        for (node, port, prio), spans in sorted(by_key.items())
    )
