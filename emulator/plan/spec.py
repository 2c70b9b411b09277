"""``RunPlan``: everything one run needs, resolved and typed, built once from a scenario.

    scenario YAML ─load─► Scenario ─build_plan─► RunPlan ─► NetworkRuntime (virtual | mininet)

A plan is frozen: the runtimes read it and never change it. It holds the live controller
(``emulator.control.live``), the one stateful part, which follows the fabric's links during
the run; so a plan serves one run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.control.live import LiveController
from emulator.errors import UserError
from emulator.target.ops import SwitchOp
from emulator.topology import ResolvedTopology
from emulator.traffic.rnic import RnicConfig


@dataclass(frozen=True)
class RunOptions:
    """How the runtime runs: queues, PFC honouring, seed, sampling, where files go."""

    priority_queues: int = 8
    #: switches honour received PFC frames
    pfc: bool = True
    #: PFC watchdog (ms; None: off), armed in every switch
    pfc_watchdog_ms: float | None = None
    seed: int = 1
    sample_interval_ns: int = 1_000_000
    pcap_dir: str | None = None
    log_dir: str | None = None


@dataclass(frozen=True)
class WorkloadPlan:
    """The workload of the run: its ``workload_from_dict`` mapping and its hosts (once)."""

    mapping: Mapping[str, Any]
    hosts: frozenset[str]
    #: a ``training_step`` workload's placed and mapped job (``emulator.traffic.training``)
    job: Any = None


@dataclass(frozen=True)
class RunPlan:
    """A resolved run: topology, programs, switch operations, RNICs, workload, controller.

    ``programs`` maps switch -> BMv2 JSON; ``switch_ops`` switch -> the typed runtime
    operations (``emulator.target.ops``) applied to the fresh switch at start.
    """

    topo: ResolvedTopology
    programs: Mapping[str, Mapping[str, Any]]
    switch_ops: Mapping[str, tuple[SwitchOp, ...]]
    #: "builtin" (fabemu's target) or "bmv2" (real simple_switch; Mininet only)
    target: str = "builtin"
    fabric: str = "roce"
    rnic: RnicConfig = field(default_factory=RnicConfig)
    options: RunOptions = field(default_factory=RunOptions)
    workload: WorkloadPlan | None = None
    #: the control plane of the run (None: nothing repairs the fabric when links change)
    controller: LiveController | None = None
    #: RNIC wire format (an ``emulator.traffic.framing.Framing``); None = RoCEv2
    framing: Any = None
    #: link-level credits (``emulator.ib.credits.CreditConfig``); None = none
    credits: Any = None

    def __post_init__(self) -> None:
        missing = [s.name for s in self.topo.switches if s.name not in self.programs]
        if missing:
            raise UserError(f"run plan: no P4 program for switch(es) {', '.join(missing)}")
