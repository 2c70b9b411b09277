"""Shared set-up of the virtual-time runtime tests: compiled program, commands, configs."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from emulator.control import FabricConfig, FabricController
from emulator.control.live import LiveController
from emulator.measure.results import RunMeta, RunResult
from emulator.plan.spec import RunOptions, RunPlan
from emulator.runtime.virtual.runtime import VirtualRuntime
from emulator.topology import ResolvedTopology, load_clos, resolve

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "p4" / "roce_fabric.p4"
META = RunMeta(scenario="test", runtime="virtual", target="builtin")


@cache
def program() -> dict[str, Any]:
    """p4/roce_fabric.p4 compiled by fabemu's front end (once per test process)."""
    from emulator.p4c import compile_file

    return compile_file(str(PROGRAM))


@cache
def topology(name: str) -> ResolvedTopology:
    """A resolved topology from topologies/."""
    return resolve(load_clos(name))


def plan_for(
    topo: ResolvedTopology,
    programs: Any,
    switch_ops: Any,
    *,
    rnic: dict[str, Any] | None = None,
    target: str = "builtin",
    controller: LiveController | None = None,
    **options: Any,
) -> RunPlan:
    """A RunPlan from its parts; ``options`` are RunOptions fields, ``rnic`` RnicConfig ones."""
    from emulator.traffic.rnic_process import rnic_config_from_dict

    return RunPlan(
        topo,
        programs,
        switch_ops,
        target=target,
        rnic=rnic_config_from_dict(rnic or {}),
        options=RunOptions(**options),
        controller=controller,
    )


def config(
    topo: ResolvedTopology | str,
    fabric: FabricConfig | None = None,
    *,
    live: bool = False,
    detection_delay_ns: int = 0,
    **kw: Any,
) -> tuple[RunPlan, FabricController]:
    """A RunPlan (every switch runs roce_fabric.p4 with the controller's operations).

    ``live``: the plan carries the controller, which repairs routes on link events.
    """
    if isinstance(topo, str):
        topo = topology(topo)
    ctl = FabricController(topo, fabric or FabricConfig())
    prog = program()
    controller = LiveController(ctl, detection_delay_ns) if live else None
    plan = plan_for(
        topo,
        {s.name: prog for s in topo.switches},
        {s.name: ctl.switch_ops(s.name) for s in topo.switches},
        controller=controller,
        **kw,
    )
    return plan, ctl


def run(
    cfg: RunPlan, workload: dict[str, Any], until_ns: int = 10**10
) -> tuple[bool, RunResult, VirtualRuntime]:
    """Start, deploy one workload, run, collect; returns (done, result, runtime)."""
    with VirtualRuntime(cfg) as rt:
        rt.start()
        rt.add_workload(workload)
        done = rt.run(until_ns)
        return done, rt.result(META), rt


def assert_conserved(result: RunResult) -> None:
    """Packet conservation holds exactly."""
    c = result.conservation
    assert c is not None
    assert c.ok and c.imbalance == 0, c
    assert c.sent == result.totals.packets_sent
