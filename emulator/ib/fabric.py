"""The IB fabric for a run: OpenSM routing -> switch programs, commands, framing, credits.

topology ─► ibsim + OpenSM (subnet.compute_routing) ─► IbRouting (LIDs, LFTs)
              ├─► p4/ib_fabric.p4 tables (commands.switch_ops)
              ├─► IbFraming (RNICs address peers by LID)
              └─► CreditConfig (VL credits in the virtual-time runtime)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from emulator.ib.commands import IbSwitchConfig, switch_ops
from emulator.ib.credits import CreditConfig
from emulator.ib.framing import IbEndpoint, IbFraming
from emulator.ib.routing import IbRouting
from emulator.ib.subnet import SmOptions, compute_routing
from emulator.target.ops import SwitchOp
from emulator.topology.resolve import ResolvedTopology

PROGRAM = Path(__file__).resolve().parents[2] / "p4" / "ib_fabric.p4"


@dataclass(frozen=True)
class IbFabricSettings:
    """Routing engine, LMC, adaptive routing, data VLs and credit buffer of an IB run."""

    routing: str = "ftree"
    lmc: int = 0
    adaptive: bool = False
    data_vls: int = 1
    buffer_bytes_per_vl: int = 16384


@dataclass(frozen=True)
class IbFabric:
    """Everything a runtime needs for the IB fabric of one topology."""

    routing: IbRouting
    program: dict[str, Any]
    #: switch name -> the typed operations that program it
    ops: dict[str, tuple[SwitchOp, ...]]
    framing: IbFraming
    credits: CreditConfig


@cache
def _routing(topo: ResolvedTopology, engine: str, lmc: int) -> IbRouting:
    return compute_routing(topo, SmOptions(engine, lmc))


@cache
def _program(path: Path) -> dict[str, Any]:
    from emulator.p4c import compile_file

    return compile_file(path)


def build_ib_fabric(
    topo: ResolvedTopology, settings: IbFabricSettings, program: Path | None = None
) -> IbFabric:
    """Run OpenSM (cached per topology, engine and LMC) and derive the run's IB parts."""
    routing = _routing(topo, settings.routing, settings.lmc)
    cfg = IbSwitchConfig(adaptive=settings.adaptive, data_vls=settings.data_vls)
    ops = switch_ops(topo, routing, cfg)
    endpoints = {h.ip: IbEndpoint(h.mac, routing.lids(h.name)) for h in topo.hosts}
    framing = IbFraming(endpoints, data_vls=settings.data_vls)
    return IbFabric(
        routing,
        _program(program or PROGRAM),
        ops,
        framing,
        CreditConfig(settings.buffer_bytes_per_vl),
    )
