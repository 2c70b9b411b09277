"""Shared set-up of the virtual-time runtime tests: compiled program, commands, configs."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from emulator.control import FabricConfig, FabricController
from emulator.measure.results import RunMeta, RunResult
from emulator.runtime.base import RuntimeConfig
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


def config(
    topo: ResolvedTopology | str,
    fabric: FabricConfig | None = None,
    **kw: Any,
) -> tuple[RuntimeConfig, FabricController]:
    """A RuntimeConfig (every switch runs roce_fabric.p4 with the controller's commands)."""
    if isinstance(topo, str):
        topo = topology(topo)
    ctl = FabricController(topo, fabric or FabricConfig())
    prog = program()
    cfg = RuntimeConfig(
        topo,
        {s.name: prog for s in topo.switches},
        {s.name: ctl.command_file(s.name).splitlines() for s in topo.switches},
        **kw,
    )
    return cfg, ctl


def run(
    cfg: RuntimeConfig, workload: dict[str, Any], until_ns: int = 10**10
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
