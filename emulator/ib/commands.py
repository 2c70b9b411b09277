"""IB switch tables from OpenSM's routing: typed runtime operations for p4/ib_fabric.p4.

* ``lft``: every LFT entry of the switch (DLID -> port; entries for the switch's own LID,
  port 0, are management traffic and are left out: the program drops them).
* ``sl2vl``: SL -> VL, ``sl % data_vls``.
* adaptive routing: for every destination LID, the ports on a shortest path towards the
  LID's owner (``ar_count[DLID]``, ``ar_ports[DLID * 8 + i]``), and ``set_config 1``.
  After a link change :func:`ar_diff` gives the register writes that take the port sets to
  the new topology (what a real SM with AR does to the switches' AR groups).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
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


#: switch -> {DLID: equal-cost ports}
ArGroups = dict[str, dict[int, tuple[int, ...]]]


def equal_cost_ports(
    topo: ResolvedTopology, routing: IbRouting, down: Collection[frozenset[str]] = ()
) -> ArGroups:
    """switch -> {DLID: ports on a minimum-hop path to the DLID's owner}, for every LID,
    over the links that are up (``down``: node pairs whose links are all down)."""
    g = nx.Graph(topo.graph())
    g.remove_edges_from(tuple(pair) for pair in down if len(pair) == 2)
    out: ArGroups = {s.name: {} for s in topo.switches}
    for dst in routing.base_lids:
        dist = nx.single_source_shortest_path_length(g, dst)
        for s in topo.switches:
            if s.name == dst or s.name not in dist:
                continue
            ports = tuple(
                p.number
                for p in s.ports
                if dist.get(p.peer, -1) == dist[s.name] - 1
                and frozenset((s.name, p.peer)) not in down
            )
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
            if len(ports) >= 2:
                ops += ar_writes(lid, ports)
        out[s.name] = tuple(ops)
    return out


def ar_writes(lid: int, ports: tuple[int, ...]) -> list[RegisterWrite]:
    """The register writes that make ``ports`` the AR group of ``lid`` (fewer than two
    ports: count 0, the LFT's port is used)."""
    ports = _effective(ports)
    ops = [RegisterWrite("ar_count", lid, len(ports))]
    return ops + [RegisterWrite("ar_ports", lid * AR_MAX + i, p) for i, p in enumerate(ports)]


def ar_diff(
    old: Mapping[int, tuple[int, ...]], new: Mapping[int, tuple[int, ...]]
) -> list[RegisterWrite]:
    """Register writes taking one switch's AR groups from ``old`` to ``new``.

    A changed group also clears ``ar_last`` (the port the DLID's last packet took): it may
    be the dead port, which the program would otherwise keep using while nothing is emptier.
    """
    ops: list[RegisterWrite] = []
    for lid in sorted(set(old) | set(new)):
        was, now = _effective(old.get(lid, ())), _effective(new.get(lid, ()))
        if was != now:
            ops += ar_writes(lid, now)
            ops.append(RegisterWrite("ar_last", lid, 0))
    return ops


def _effective(ports: tuple[int, ...]) -> tuple[int, ...]:
    """The group the program uses: the first AR_MAX ports, none when fewer than two."""
    return ports[:AR_MAX] if len(ports) >= 2 else ()


def switch_commands(
    topo: ResolvedTopology, routing: IbRouting, config: IbSwitchConfig
) -> dict[str, list[str]]:
    """switch name -> the command lines (simple_switch_CLI text) of :func:`switch_ops`."""
    return {k: [op.cli() for op in v] for k, v in switch_ops(topo, routing, config).items()}
