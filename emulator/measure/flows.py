"""Flow and collective metrics: throughput, completion time, nccl-tests algbw/busbw, conservation.

nccl-tests definitions: ``algbw = S / t`` (S: the collective's size in bytes, t: its time);
``busbw = algbw * factor`` with factor 2(n-1)/n for AllReduce and (n-1)/n for AllToAll,
AllGather and ReduceScatter (see :func:`emulator.traffic.collectives.busbw_factor`).
Bandwidths here are in bytes per second (nccl-tests prints GB/s = 1e9 B/s).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from emulator.measure.flowid import FlowId


@dataclass(frozen=True)
class FlowRecord:
    """One flow (a QP, or a connection's bytes in one direction)."""

    src: str
    dst: str
    flow_id: FlowId
    bytes: int
    start_ns: int
    end_ns: int

    @property
    def duration_ns(self) -> int:
        """Completion time of the flow."""
        return max(0, self.end_ns - self.start_ns)

    @property
    def throughput_bps(self) -> float:
        """Goodput in bit/s (0 for an instantaneous flow)."""
        d = self.duration_ns
        return self.bytes * 8e9 / d if d else 0.0

    def as_dict(self) -> dict[str, object]:
        """JSON-ready dict including the derived figures (the flow id in its text form)."""
        return asdict(self) | {
            "flow_id": str(self.flow_id),
            "duration_ns": self.duration_ns,
            "throughput_bps": self.throughput_bps,
        }


@dataclass(frozen=True)
class CollectiveRecord:
    """One collective (or workload) run over ``ranks`` ranks."""

    name: str
    collective: str
    algorithm: str
    ranks: int
    size_bytes: int
    iterations: int
    start_ns: int
    end_ns: int
    busbw_factor: float
    num_qps: int = 1  # data QPs per connection

    @property
    def time_ns(self) -> float:
        """Mean time of one iteration."""
        return max(0, self.end_ns - self.start_ns) / max(1, self.iterations)

    @property
    def algbw_Bps(self) -> float:
        """nccl-tests algorithm bandwidth, bytes/s."""
        t = self.time_ns
        return self.size_bytes * 1e9 / t if t else 0.0

    @property
    def busbw_Bps(self) -> float:
        """nccl-tests bus bandwidth, bytes/s."""
        return self.algbw_Bps * self.busbw_factor

    def as_dict(self) -> dict[str, object]:
        """JSON-ready dict including the derived figures."""
        return asdict(self) | {
            "time_ns": self.time_ns,
            "algbw_Bps": self.algbw_Bps,
            "busbw_Bps": self.busbw_Bps,
        }


def algbw(size_bytes: int, time_ns: float) -> float:
    """Algorithm bandwidth (bytes/s) of ``size_bytes`` moved in ``time_ns``."""
    return size_bytes * 1e9 / time_ns if time_ns > 0 else 0.0


def busbw(size_bytes: int, time_ns: float, factor: float) -> float:
    """Bus bandwidth (bytes/s) = algbw * factor."""
    return algbw(size_bytes, time_ns) * factor


@dataclass(frozen=True)
class Conservation:
    """Packet conservation check: sent = delivered + counted drops (+ still in flight)."""

    sent: int
    delivered: int
    dropped: int
    in_flight: int = 0

    @property
    def imbalance(self) -> int:
        """Packets unaccounted for (0 when conserved; > 0 lost silently, < 0 duplicated)."""
        return self.sent - self.delivered - self.dropped - self.in_flight

    @property
    def ok(self) -> bool:
        """True when every sent packet is accounted for."""
        return self.imbalance == 0


def conservation(sent: int, delivered: int, dropped: int, in_flight: int = 0) -> Conservation:
    """Build a :class:`Conservation` record (counts of packets)."""
    return Conservation(sent, delivered, dropped, in_flight)


def jain_fairness(values: list[float]) -> float:
    """Jain's fairness index of per-flow throughputs (1.0 = perfectly even)."""
    if not values:
        return 1.0
    s, sq = sum(values), sum(v * v for v in values)
    return s * s / (len(values) * sq) if sq else 1.0


def latency_summary(samples: list[int]) -> dict[str, float]:
    """count, mean, p50, p99 and max of latency samples (ns); nearest-rank percentiles."""
    if not samples:
        return {"count": 0, "mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    s = sorted(samples)
    n = len(s)

    def pct(p: float) -> float:
        return float(s[min(n - 1, max(0, -(-int(p * n) // 100) - 1))])

    return {"count": n, "mean": sum(s) / n, "p50": pct(50), "p99": pct(99), "max": float(s[-1])}
