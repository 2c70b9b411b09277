"""The scenario file schema (pydantic): what to build, what to run, what to expect.

A scenario is YAML, safe-loaded, validated here before anything starts. Paths inside it
(topology, P4 program) are relative to the scenario file. Unknown keys are errors.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from emulator.faults.schema import FaultList
from emulator.plan.compat import incompatibility
from emulator.scenario.training_schema import TrainingJob
from emulator.vocab import HashAlgo, LbMode


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: keys left out of dumps while at their default (added later: old results stay identical)
    _sparse: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        for key in self._sparse:
            if isinstance(out, dict) and getattr(self, key) == type(self).model_fields[key].default:
                out.pop(key, None)
        return out


class PfcSettings(_Strict):
    """Priority flow control: pause upstream when a queue crosses XOFF, resume below XON.

    Thresholds left out are derived from the topology's link rates and cable delays, the
    RNIC MTU, the queue depth and ``response_ns`` (emulator.control.pfc_headroom: IEEE
    802.1Qbb headroom); give both to set them explicitly.
    """

    enabled: bool = True
    xoff_pkts: Annotated[int, Field(ge=1)] | None = None
    xon_pkts: Annotated[int, Field(ge=0)] | None = None
    #: a neighbour's reaction time to a pause beyond finishing its current frame (ns); the
    #: IEEE 802.3 bound at 400 Gb/s is 463,360 bit times = 1158 ns
    response_ns: Annotated[int, Field(ge=0)] = 0
    #: pause time per XOFF in 512-bit-time quanta; the switch refreshes XOFF before it
    #: expires. None: at least 20 us at the fastest link, at least 1000 (51 ms at 10 Mb/s)
    quanta: Annotated[int, Field(ge=1, le=0xFFFF)] | None = None
    #: PFC watchdog (ms): a queue paused longer than this stops honouring pauses and drops
    #: (emulator.target.pfc); None = off. Meta runs 200 ms
    watchdog_ms: Annotated[float, Field(gt=0, le=600_000)] | None = None
    _sparse = ("watchdog_ms",)

    @model_validator(mode="after")
    def _xon_below_xoff(self) -> PfcSettings:
        if (self.xoff_pkts is None) != (self.xon_pkts is None):
            raise ValueError("give both xoff_pkts and xon_pkts, or neither (derived)")
        xon, xoff = self.xon_pkts, self.xoff_pkts
        if xon is not None and xoff is not None and xon >= xoff:
            raise ValueError(f"xon_pkts ({xon}) must be below xoff_pkts ({xoff})")
        return self


class EcnSettings(_Strict):
    """ECN CE marking above a queue threshold (off by default: Meta runs DCQCN off)."""

    enabled: bool = False
    threshold_pkts: Annotated[int, Field(ge=1)] = 32


class ControlSettings(_Strict):
    """The live control plane: how it reacts when a link goes down or comes up mid-run."""

    #: recompute routes / ECMP groups / pinning entries and install the difference
    repair: bool = True
    #: time from the link change to the installed repair (BFD/LACP detection, the routing
    #: daemon's hold-down, table programming), in microseconds
    detection_delay_us: Annotated[float, Field(ge=0, le=60_000_000, allow_inf_nan=False)] = 0.0


class SwitchSettings(_Strict):
    """The P4 program and its run-time knobs, the same on every switch."""

    program: str = "../p4/roce_fabric.p4"
    lb: LbMode = LbMode.ECMP
    #: one algorithm for every switch; None = control-plane default (crc16 leaves, crc32 above)
    hash: HashAlgo | None = None
    flowlet_gap_us: Annotated[int, Field(ge=1)] = 100
    pfc: PfcSettings = PfcSettings()
    ecn: EcnSettings = EcnSettings()
    cts_priority: bool = True
    priority_queues: Annotated[int, Field(ge=1, le=8)] = 8
    #: None: the target default (64); on Mininet with PFC on, deeper for the processes' lag
    queue_depth_pkts: Annotated[int, Field(ge=1)] | None = None
    queue_rate_pps: Annotated[float, Field(ge=0)] = 0.0
    control: ControlSettings = ControlSettings()

    @model_serializer(mode="wrap")
    def _hide_default_control(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave ``control`` out of dumps while it is the default, so results recorded
        before the key existed (and their golden copies) stay the same."""
        out: dict[str, Any] = handler(self)
        if self.control == ControlSettings():
            out.pop("control", None)
        return out


class Workload(_Strict):
    """The traffic: which collective or flow pattern, how big, where placed.

    Vocabulary of :func:`emulator.traffic.workloads.workload_from_dict`; ``ranks`` with
    ``placement`` picks hosts from the topology when ``hosts`` is not given.
    """

    kind: Literal["fat_flows", "allreduce", "alltoall", "incast", "training_step"]
    algorithm: Literal["ring", "halving_doubling"] = "ring"
    pairs: list[tuple[str, str]] | None = None
    hosts: list[str] | None = None
    senders: list[str] | None = None
    receiver: str | None = None
    ranks: Annotated[int, Field(ge=2)] | None = None
    #: random: hosts drawn from the seed (allreduce/alltoall ranks; fat_flows: destinations
    #: of ``pairs`` shuffled among the pairs); packed/spread: see workloads.place
    placement: Literal["packed", "spread", "random"] = "spread"
    size_bytes: Annotated[int, Field(ge=1)] = 262_144
    num_qps: Annotated[int, Field(ge=1, le=64)] = 1
    iterations: Annotated[int, Field(ge=1)] = 1
    #: the training job of a ``training_step`` workload (emulator.scenario.training_schema)
    job: TrainingJob | None = None

    @model_validator(mode="after")
    def _participants(self) -> Workload:
        if self.kind == "training_step" and self.job is None:
            raise ValueError("training_step needs 'job': ranks, tp, cp, pp, dp, ...")
        if self.kind == "fat_flows" and not self.pairs:
            raise ValueError("fat_flows needs 'pairs': a list of [src, dst] host names")
        if self.kind == "incast" and not (self.senders and self.receiver):
            raise ValueError("incast needs 'senders' (host names) and 'receiver' (a host name)")
        if self.kind in ("allreduce", "alltoall") and not (self.hosts or self.ranks):
            raise ValueError(f"{self.kind} needs 'hosts' or 'ranks' (with 'placement')")
        return self


class RnicSettings(_Strict):
    """Emulated RNIC knobs (``emulator.traffic.rnic.RnicConfig``)."""

    mtu: Literal[256, 512, 1024, 2048, 4096] = 1024
    admission: bool = True  # NCCL-style CTS before each chunk
    chunk_bytes: Annotated[int, Field(ge=1)] = 131_072
    cts_window: Annotated[int, Field(ge=1)] = 4
    ack_every: Annotated[int, Field(ge=1)] = 8
    qp_rate_bps: Annotated[float, Field(gt=0)] | None = None
    #: RoCEv2 UDP source port: qpn_hash (per QP), per_connection, fixed (one per RNIC);
    #: docs/traffic.md says which real RNIC behaviour each models
    udp_sport: Literal["qpn_hash", "per_connection", "fixed"] = "qpn_hash"
    tx_jitter_ns: Annotated[int, Field(ge=0)] = 0  # seeded idle time after each frame
    #: consecutive retransmissions (timeouts or NAKs without progress) before a QP errors
    retry_cnt: Annotated[int, Field(ge=0, le=7)] = 7
    #: retransmission timeout (ms); None = the RNIC default (emulator.traffic.rnic.RnicConfig)
    rto_ms: Annotated[float, Field(gt=0, le=600_000)] | None = None
    #: packets a receiver accepts ahead of the expected PSN and places out of order (0: strict
    #: go-back-N, every gap NAKed, as RoCE NICs; > 0: as IB HCAs under adaptive routing)
    ooo_window: Annotated[int, Field(ge=0, le=4096)] = 0
    _sparse = ("retry_cnt", "rto_ms", "ooo_window")


Finite = Annotated[float, Field(allow_inf_nan=False)]


class IbSettings(_Strict):
    """The InfiniBand fabric (``fabric: ib``): OpenSM routing, adaptive routing, credits."""

    program: str | None = None  # None: the shipped p4/ib_fabric.p4
    routing: Literal["ftree", "updn", "minhop"] = "ftree"  # OpenSM routing engine
    lmc: Annotated[int, Field(ge=0, le=7)] = 0  # 2**lmc LIDs per HCA port
    adaptive_routing: bool = False  # per packet, least-occupied equal-cost port
    data_vls: Annotated[int, Field(ge=1, le=8)] = 1
    vl_buffer_bytes: Annotated[int, Field(ge=4224)] = 16384  # receive buffer per (port, VL)

    @model_validator(mode="after")
    def _ftree_lmc(self) -> IbSettings:
        if self.routing == "ftree" and self.lmc:
            raise ValueError("OpenSM's ftree engine does not support lmc > 0 (use updn or minhop)")
        return self


class Bound(_Strict):
    """One expectation: the metric must satisfy every bound given."""

    min: Finite | None = None
    max: Finite | None = None
    eq: Finite | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> Bound:
        if self.min is None and self.max is None and self.eq is None:
            raise ValueError("give at least one of min, max, eq")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is greater than max ({self.max:g})")
        if self.eq is not None and not (
            (self.min is None or self.min <= self.eq) and (self.max is None or self.eq <= self.max)
        ):
            raise ValueError(f"eq ({self.eq:g}) is outside min..max")
        return self


class Scenario(_Strict):
    """A whole scenario file."""

    name: str
    description: str = ""
    topology: str
    fabric: Literal["roce", "ib"] = "roce"
    target: Literal["builtin", "bmv2"] = "builtin"
    runtime: Literal["auto", "virtual", "mininet"] = "auto"
    switch: SwitchSettings = SwitchSettings()
    ib: IbSettings = IbSettings()
    workload: Workload
    rnic: RnicSettings = RnicSettings()
    duration_ms: Annotated[float, Field(gt=0, le=600_000)] = 200.0
    seed: int = 1
    pcap: bool = False
    expect: dict[str, Bound] = {}
    #: named override sets (``{label: {dotted.key: value}}``) that ``fabemu compare`` runs
    variants: dict[str, dict[str, Any]] = {}
    #: links, switches and hosts failing mid-run (emulator.faults.schema, docs/faults.md)
    faults: FaultList = []
    _sparse = ("faults",)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        problem = incompatibility(self.fabric, self.target, self.runtime, self.workload.kind)
        if problem:
            raise ValueError(problem)
        return self
