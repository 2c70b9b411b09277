"""The run-result schema: one versioned JSON document per run, the same for every runtime.

Both runtimes (Mininet, virtual time) fill a :class:`RunResult`; scenarios' expectations,
reports and the analytic scaler's calibration read it. Times are integer nanoseconds of the
run's clock (virtual or wall), rates bit/s, bandwidths bytes/s (as nccl-tests).
A run that fails or is interrupted still writes one, with ``meta.complete = False``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from emulator.measure.flowid import FlowIdField
from emulator.measure.flows import CollectiveRecord, Conservation, FlowRecord

SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunMeta(_Model):
    """What ran, where, why, and whether it finished."""

    scenario: str
    scenario_file: str | None = None
    runtime: str  # "virtual" | "mininet"
    target: str  # "builtin" | "bmv2"
    why: str = ""  # how runtime and target were chosen
    seed: int = 0
    lb: str | None = None
    num_qps: int | None = None
    placement: str | None = None
    topology: dict[str, Any] = Field(default_factory=dict)  # the spec, as data
    settings: dict[str, Any] = Field(default_factory=dict)  # the scenario after overrides
    started_at: str = ""  # ISO 8601 wall clock
    wall_s: float = 0.0
    end_ns: int = 0  # the run clock at the end
    complete: bool = False
    incomplete_reason: str | None = None
    fabemu_version: str = ""


class FlowResult(_Model):
    """One flow: a QP's bytes in one direction, or a connection's."""

    src: str
    dst: str
    flow_id: FlowIdField  # written as "0x<src QPN>->0x<dst QPN>"
    bytes: int
    start_ns: int
    end_ns: int
    duration_ns: int
    throughput_bps: float
    uplinks: list[str] = Field(default_factory=list)  # "rtsw0:5" egress ports used upwards
    #: how ``uplinks`` was obtained: "measured" (frames seen on the uplinks), "predicted"
    #: (the leaf's program run on a frame of the flow), "" (not known)
    uplinks_source: str = ""

    @classmethod
    def from_record(
        cls, rec: FlowRecord, uplinks: list[str] | None = None, uplinks_source: str = ""
    ) -> FlowResult:
        """Build from the traffic layer's :class:`FlowRecord`."""
        return cls(
            src=rec.src,
            dst=rec.dst,
            flow_id=rec.flow_id,
            bytes=rec.bytes,
            start_ns=rec.start_ns,
            end_ns=rec.end_ns,
            duration_ns=rec.duration_ns,
            throughput_bps=rec.throughput_bps,
            uplinks=list(uplinks or []),
            uplinks_source=uplinks_source,
        )


class CollectiveResult(_Model):
    """One collective (or workload) with nccl-tests bandwidth figures."""

    name: str
    collective: str
    algorithm: str
    ranks: int
    size_bytes: int
    iterations: int
    num_qps: int
    start_ns: int
    end_ns: int
    time_ns: float
    algbw_Bps: float
    busbw_Bps: float

    @classmethod
    def from_record(cls, rec: CollectiveRecord) -> CollectiveResult:
        """Build from the traffic layer's :class:`CollectiveRecord`."""
        return cls(
            name=rec.name,
            collective=rec.collective,
            algorithm=rec.algorithm,
            ranks=rec.ranks,
            size_bytes=rec.size_bytes,
            iterations=rec.iterations,
            num_qps=rec.num_qps,
            start_ns=rec.start_ns,
            end_ns=rec.end_ns,
            time_ns=rec.time_ns,
            algbw_Bps=rec.algbw_Bps,
            busbw_Bps=rec.busbw_Bps,
        )


class LinkSeries(_Model):
    """One direction of one link: totals and utilisation sampled over time."""

    src: str
    src_port: int
    dst: str
    dst_port: int
    kind: str  # "host" | "fabric" (leaf-spine) | "agg" (spine-ATSW)
    up: bool  # towards the higher tier (host->leaf, leaf->spine, spine->agg)
    rate_bps: float
    bytes: int = 0
    packets: int = 0
    t_ns: list[int] = Field(default_factory=list)
    utilisation: list[float] = Field(default_factory=list)  # 0..1 per sample interval

    @property
    def name(self) -> str:
        """``src:port->dst:port``."""
        return f"{self.src}:{self.src_port}->{self.dst}:{self.dst_port}"


class QueueSeries(_Model):
    """Depth of one egress queue over time, with its counters."""

    switch: str
    port: int
    priority: int
    t_ns: list[int] = Field(default_factory=list)
    depth: list[int] = Field(default_factory=list)  # packets
    max_depth: int = 0
    enqueued: int = 0
    dequeued: int = 0
    dropped: int = 0


class PauseEvent(_Model):
    """A PFC frame put on the wire (by a switch or a host)."""

    t_ns: int
    node: str
    port: int
    priority: int
    quanta: int


class Totals(_Model):
    """Run-wide counters."""

    packets_sent: int = 0  # by RNICs
    packets_delivered: int = 0  # to RNICs
    drops: int = 0  # counted drops: switch queues, failed links, P4 drops
    pause_frames: int = 0  # PFC frames sent by switches
    pause_frames_hosts: int = 0  # PFC frames honoured by hosts
    ecn_marks: int = 0
    retransmissions: int = 0
    naks: int = 0


class ConservationResult(_Model):
    """sent = delivered + counted drops (+ still in flight)."""

    sent: int
    delivered: int
    dropped: int
    in_flight: int
    imbalance: int
    ok: bool

    @classmethod
    def from_record(cls, c: Conservation) -> ConservationResult:
        """Build from :class:`emulator.measure.flows.Conservation`."""
        return cls(
            sent=c.sent,
            delivered=c.delivered,
            dropped=c.dropped,
            in_flight=c.in_flight,
            imbalance=c.imbalance,
            ok=c.ok,
        )


class RunResult(_Model):
    """Everything one run measured."""

    schema_version: int = SCHEMA_VERSION
    meta: RunMeta
    flows: list[FlowResult] = Field(default_factory=list)
    collectives: list[CollectiveResult] = Field(default_factory=list)
    links: list[LinkSeries] = Field(default_factory=list)
    queues: list[QueueSeries] = Field(default_factory=list)
    pauses: list[PauseEvent] = Field(default_factory=list)
    cts_latency_ns: list[int] = Field(default_factory=list)
    hosts: dict[str, dict[str, float]] = Field(default_factory=dict)  # RNIC counters
    switches: dict[str, dict[str, float]] = Field(default_factory=dict)  # switch counters
    totals: Totals = Field(default_factory=Totals)
    conservation: ConservationResult | None = None
    events: list[str] = Field(default_factory=list)  # e.g. "t=1200000 fail_link rtsw0 ctsw1"
    #: a training_step's stages and times (emulator.scenario.training_run), else None
    training: dict[str, Any] | None = None
    #: faults injected and the fabric's recovery (emulator.faults.report); left out of the
    #: JSON when the run had none
    faults: dict[str, Any] | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if isinstance(out, dict) and self.faults is None:
            out.pop("faults", None)
        return out

    def save(self, path: Path | str) -> Path:
        """Write as indented JSON; returns the path."""
        path = Path(path)
        path.write_text(self.model_dump_json(indent=1))
        return path

    @classmethod
    def load(cls, path: Path | str) -> RunResult:
        """Read a result file written by :meth:`save` (any older schema is refused)."""
        data = Path(path).read_text()
        result = cls.model_validate_json(data)
        if result.schema_version != SCHEMA_VERSION:
            raise ValueError(
                f"{path}: result schema {result.schema_version}, this fabemu reads {SCHEMA_VERSION}"
            )
        return result
