"""IB switch tables from OpenSM's routing: typed runtime operations for p4/ib_fabric.p4.

* ``lft``: every LFT entry of the switch (DLID -> port; entries for the switch's own LID,
  port 0, are management traffic and are left out: the program drops them).
* ``sl2vl``: SL -> VL, ``sl % data_vls``.
* adaptive routing: for every destination LID, the ports on a shortest path towards the
  LID's owner (``ar_count[DLID]``, ``ar_ports[DLID * 8 + i]``), and ``set_config 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from emulator.errors import UserError
from emulator.ib.routing import IbRouting
from emulator.target.ops import RegisterWrite, SwitchOp, TableAdd, TableSetDefault
from emulator.topology.resolve import ResolvedTopology

AR_MAX = 8  # candidate ports per DLID (AR_MAX in p4/include/ib_headers.p4)
IB_LIDS = 4096  # LIDs the program's tables and registers hold


@dataclass(frozen=True)
class IbSwitchConfig:
    """Data-plane knobs of the IB program: adaptive routing and the number of data VLs."""

    adaptive: bool = False
    data_vls: int = 1


def equal_cost_ports(
    topo: ResolvedTopology, routing: IbRouting
) -> dict[str, dict[int, tuple[int, ...]]]:
    """switch -> {DLID: ports on a minimum-hop path to the DLID's owner}, for every LID."""
    g = nx.Graph(topo.graph())
    out: dict[str, dict[int, tuple[int, ...]]] = {s.name: {} for s in topo.switches}
    for dst in routing.base_lids:
        dist = nx.single_source_shortest_path_length(g, dst)
        for s in topo.switches:
            if s.name == dst:
                continue
            ports = tuple(p.number for p in s.ports if dist.get(p.peer, -1) == dist[s.name] - 1)
            for lid in routing.lids(dst):
                out[s.name][lid] = ports
    return out


def switch_ops(
    topo: ResolvedTopology, routing: IbRouting, config: IbSwitchConfig
) -> dict[str, tuple[SwitchOp, ...]]:
    """switch name -> the typed operations that program it."""
    too_high = [lid for lft in routing.lfts.values() for lid in lft if lid >= IB_LIDS]
    if too_high:
        raise UserError(f"LID {max(too_high)} beyond the program's {IB_LIDS} LIDs")
    groups = equal_cost_ports(topo, routing) if config.adaptive else {}
    out: dict[str, tuple[SwitchOp, ...]] = {}
    for s in topo.switches:
        ops: list[SwitchOp] = [TableSetDefault("ib_config", "set_config", (int(config.adaptive),))]
        ops += [TableAdd("sl2vl", "set_vl", (sl,), (sl % config.data_vls,)) for sl in range(15)]
        lft = routing.lfts[s.name]
        ops += [
            TableAdd("lft", "forward", (lid,), (port,)) for lid, port in sorted(lft.items()) if port
        ]
        for lid, ports in sorted(groups.get(s.name, {}).items()):
            if len(ports) < 2:
                continue
            ports = ports[:AR_MAX]
            ops.append(RegisterWrite("ar_count", lid, len(ports)))
            ops += [RegisterWrite("ar_ports", lid * AR_MAX + i, p) for i, p in enumerate(ports)]
        out[s.name] = tuple(ops)
    return out


def switch_commands(
    topo: ResolvedTopology, routing: IbRouting, config: IbSwitchConfig
) -> dict[str, list[str]]:
    """switch name -> the command lines (simple_switch_CLI text) of :func:`switch_ops`."""
    return {k: [op.cli() for op in v] for k, v in switch_ops(topo, routing, config).items()}
