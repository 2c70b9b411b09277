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
from typing import Any, Literal

LinkKind = Literal["host", "up", "down"]


@dataclass(frozen=True)
class FlowView:
    """One flow: bytes moved between ``start_ns`` and ``end_ns``."""

    src: str
    dst: str
    flow_id: str
    bytes: int
    start_ns: int
    end_ns: int
    finished: bool = True

    @property
    def duration_ns(self) -> int:
        """Flow completion time (0 when not positive)."""
        return max(0, self.end_ns - self.start_ns)

    @property
    def gbps(self) -> float:
        """Goodput in Gbit/s (0 for an instantaneous flow)."""
        d = self.duration_ns
        return self.bytes * 8 / d if d else 0.0


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

    @property
    def label(self) -> str:
        """``node:port->peer`` for plot axes."""
        return f"{self.node}:{self.port}->{self.peer}"

    @property
    def total_bytes(self) -> int:
        """Bytes over the whole run."""
        return sum(self.tx_bytes)


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


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    """First present attribute or mapping key among ``names``."""
    for name in names:
        if isinstance(obj, Mapping):
            if name in obj:
                return obj[name]
        elif hasattr(obj, name):
            return getattr(obj, name)
    return default


def _seq(obj: Any, *names: str) -> Sequence[Any]:
    value = _get(obj, *names, default=None)
    if value is None:
        return ()
    if isinstance(value, Mapping):
        return list(value.values())
    return list(value)


def as_view(result: Any) -> RunView:
    """Build a :class:`RunView` from a RunResult (model or its JSON dict); a view passes through."""
    if isinstance(result, RunView):
        return result
    meta = _get(result, "meta", "metadata", default=result)
    flows = tuple(_flow(f) for f in _seq(result, "flows"))
    colls = tuple(_collective(c) for c in _seq(result, "collectives"))
    links = tuple(_link(s) for s in _seq(result, "links", "link_series", "utilisation"))
    switches = {s.node for s in links if s.kind in ("up", "down")}
    host_leaf = {s.peer: s.node for s in links if s.kind == "host" and s.node in switches}
    counters = _get(result, "counters", default={}) or {}
    cons = _get(result, "conservation", default=None)
    return RunView(
        scenario=str(_get(meta, "scenario", "name", default="") or ""),
        runtime=str(_get(meta, "runtime", default="") or ""),
        target=str(_get(meta, "target", default="") or ""),
        why=str(_get(meta, "why", "reason", "runtime_reason", default="") or ""),
        seed=_get(meta, "seed", default=None),
        complete=bool(_get(meta, "complete", default=True)),
        incomplete_reason=str(_get(meta, "incomplete_reason", default="") or ""),
        duration_ns=int(_get(meta, "duration_ns", "end_ns", default=0) or 0),
        interval_ns=int(_get(result, "interval_ns", "bin_ns", default=0) or 0),
        flows=flows,
        collectives=colls,
        links=links,
        queues=tuple(_queue(q) for q in _seq(result, "queues", "queue_series")),
        pauses=tuple(_pause(p) for p in _seq(result, "pauses", "pause_series")),
        counters=_counter_dict(counters),
        cts_latency_ns=tuple(int(x) for x in _seq(result, "cts_latency_ns")),
        conservation_ok=None if cons is None else bool(_get(cons, "ok", default=False)),
        host_leaf=host_leaf,
    )


def _counter_dict(counters: Any) -> dict[str, int]:
    if hasattr(counters, "model_dump"):
        counters = counters.model_dump()
    elif not isinstance(counters, Mapping):
        counters = vars(counters)
    return {k: int(v) for k, v in counters.items() if isinstance(v, int | float)}


def _flow(f: Any) -> FlowView:
    return FlowView(
        src=str(_get(f, "src")),
        dst=str(_get(f, "dst")),
        flow_id=str(_get(f, "flow_id", default="")),
        bytes=int(_get(f, "bytes", default=0)),
        start_ns=int(_get(f, "start_ns", default=0)),
        end_ns=int(_get(f, "end_ns", default=0)),
        finished=bool(_get(f, "finished", "done", default=True)),
    )


def _collective(c: Any) -> CollectiveView:
    iters = max(1, int(_get(c, "iterations", default=1)))
    start, end = int(_get(c, "start_ns", default=0)), int(_get(c, "end_ns", default=0))
    time_ns = float(_get(c, "time_ns", default=max(0, end - start) / iters))
    size = int(_get(c, "size_bytes", default=0))
    alg = float(_get(c, "algbw_Bps", default=size * 1e9 / time_ns if time_ns else 0.0))
    factor = float(_get(c, "busbw_factor", default=1.0))
    return CollectiveView(
        name=str(_get(c, "name", default="")),
        collective=str(_get(c, "collective", default="")),
        algorithm=str(_get(c, "algorithm", default="")),
        ranks=int(_get(c, "ranks", default=0)),
        size_bytes=size,
        time_ns=time_ns,
        algbw_Bps=alg,
        busbw_Bps=float(_get(c, "busbw_Bps", default=alg * factor)),
        finished=bool(_get(c, "finished", "done", default=True)),
    )


def _link(s: Any) -> LinkSeries:
    return LinkSeries(
        node=str(_get(s, "node", "src", "switch", default="")),
        port=int(_get(s, "port", default=0)),
        peer=str(_get(s, "peer", "dst", default="")),
        kind=_get(s, "kind", default="up"),
        rate_bps=float(_get(s, "rate_bps", default=0.0)),
        tx_bytes=tuple(int(x) for x in _seq(s, "tx_bytes", "bytes")),
    )


def _queue(q: Any) -> QueueSeries:
    return QueueSeries(
        switch=str(_get(q, "switch", "node", default="")),
        port=int(_get(q, "port", default=0)),
        priority=int(_get(q, "priority", default=0)),
        t_ns=tuple(int(x) for x in _seq(q, "t_ns")),
        depth=tuple(int(x) for x in _seq(q, "depth", "depth_pkts")),
    )


def _pause(p: Any) -> PauseSeries:
    return PauseSeries(
        node=str(_get(p, "node", "switch", default="")),
        port=int(_get(p, "port", default=0)),
        priority=int(_get(p, "priority", default=0)),
        intervals=tuple((int(a), int(b)) for a, b in _seq(p, "intervals")),
    )
