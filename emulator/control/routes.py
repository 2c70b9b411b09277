"""Route and ECMP-group computation: shortest paths over the live links of a topology.

For every switch and every destination the next hops are the ports whose peer is one hop
closer to the destination (all equal-cost shortest paths, a breadth-first search):

    leaf  : /32 per attached host (host port), /24 per other rack (ECMP over uplinks)
    spine : /24 per rack (its leaf links; via the ATSWs for other zones' racks)
    agg   : /24 per rack (the spines of the rack's zone)

Every destination keeps a route even when unreachable (empty next hops: the control plane
points it at the drop member), so repairs only change group membership.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from emulator.control.errors import ControlError
from emulator.topology import Port, ResolvedTopology, SwitchNode

#: a failed link, identified by both ends: frozenset({(node, port), (node, port)})
LinkId = frozenset[tuple[str, int]]


@dataclass(frozen=True)
class NextHop:
    """One way out: the egress port and the MAC of the device at the other end."""

    port: int
    dmac: str
    peer: str


@dataclass(frozen=True)
class Route:
    """A destination prefix and its equal-cost next hops, sorted by port."""

    prefix: str
    next_hops: tuple[NextHop, ...]


@dataclass(frozen=True)
class SwitchRoutes:
    """Everything topology-derived that one switch is programmed with."""

    name: str
    role: str
    routes: tuple[Route, ...]
    #: (host /32, pin value) at leaves: value = the host's downlink index on its leaf
    pins: tuple[tuple[str, int], ...]
    #: (port, MAC) of every port
    port_macs: tuple[tuple[int, str], ...]
    #: slowest port rate, for PFC timing
    min_rate_bps: int

    def route(self, prefix: str) -> Route:
        """The route for ``prefix`` (ControlError if the switch has none)."""
        for r in self.routes:
            if r.prefix == prefix:
                return r
        raise ControlError(f"switch {self.name} has no route for {prefix}")


def link_id(a: str, a_port: int, b: str, b_port: int) -> LinkId:
    """The identity of the link joining ``a``'s ``a_port`` and ``b``'s ``b_port``."""
    return frozenset({(a, a_port), (b, b_port)})


def links_between(topo: ResolvedTopology, a: str, b: str) -> list[LinkId]:
    """Ids of every (parallel) link between nodes ``a`` and ``b`` (ControlError if none)."""
    found = [link_id(lk.a, lk.a_port, lk.b, lk.b_port) for lk in topo.links_between(a, b)]
    if not found:
        raise ControlError(f"topology {topo.name}: no link between {a!r} and {b!r}")
    return found


def _peer_mac(topo: ResolvedTopology, peer: str, peer_port: int) -> str:
    if topo.is_host(peer):
        return topo.host(peer).mac
    return topo.switch(peer).port(peer_port).mac


def switch_graph(topo: ResolvedTopology, failed: Iterable[LinkId] = ()) -> dict[str, set[str]]:
    """The switch-level graph of live links as adjacency sets (hosts excluded: they never
    transit). Plain dicts, not networkx: importing networkx costs ~0.1 CPU s per ``fabemu
    run``, for a breadth-first search over a few dozen switches."""
    dead = set(failed)
    g: dict[str, set[str]] = {s.name: set() for s in topo.switches}
    for lk in topo.links:
        if lk.kind == "host" or link_id(lk.a, lk.a_port, lk.b, lk.b_port) in dead:
            continue
        g.setdefault(lk.a, set()).add(lk.b)
        g.setdefault(lk.b, set()).add(lk.a)
    return g


def hop_distances(graph: Mapping[str, Iterable[str]], source: str) -> dict[str, int]:
    """Hops from ``source`` to every node it reaches (as networkx's
    ``single_source_shortest_path_length``)."""
    dist = {source: 0}
    todo = deque([source])
    while todo:
        node = todo.popleft()
        for peer in graph[node]:
            if peer not in dist:
                dist[peer] = dist[node] + 1
                todo.append(peer)
    return dist


def _live_ports(sw: SwitchNode, dead: set[LinkId]) -> list[Port]:
    return [p for p in sw.ports if link_id(sw.name, p.number, p.peer, p.peer_port) not in dead]


def compute_routes(
    topo: ResolvedTopology, failed: Iterable[LinkId] = ()
) -> dict[str, SwitchRoutes]:
    """Routes of every switch of ``topo`` with the ``failed`` links removed."""
    dead = set(failed)
    graph = switch_graph(topo, dead)
    leaves = topo.switches_by_role("leaf")
    # BFS distances from every leaf (the rack prefixes' owners)
    dist = {leaf.name: hop_distances(graph, leaf.name) for leaf in leaves}
    out: dict[str, SwitchRoutes] = {}
    for sw in topo.switches:
        live = _live_ports(sw, dead)
        routes: list[Route] = []
        if sw.role == "leaf":
            for p in sw.host_ports:
                host = topo.host(p.peer)
                hops = [NextHop(p.number, host.mac, host.name)] if p in live else []
                routes.append(Route(f"{host.ip}/32", tuple(hops)))
        for leaf in leaves:
            if leaf.name == sw.name:
                continue
            d = dist[leaf.name]
            here = d.get(sw.name)
            hops = []
            if here is not None:
                for p in live:
                    if p.kind != "host" and d.get(p.peer) == here - 1:
                        hops.append(NextHop(p.number, _peer_mac(topo, p.peer, p.peer_port), p.peer))
            routes.append(Route(str(leaf.subnet), tuple(sorted(hops, key=lambda h: h.port))))
        pins: list[tuple[str, int]] = []
        if sw.role == "leaf":
            for leaf in leaves:
                if leaf.name == sw.name:
                    continue
                for index, p in enumerate(sorted(leaf.host_ports, key=lambda q: q.number)):
                    pins.append((f"{topo.host(p.peer).ip}/32", index))
        out[sw.name] = SwitchRoutes(
            name=sw.name,
            role=sw.role,
            routes=tuple(routes),
            pins=tuple(pins),
            port_macs=tuple((p.number, p.mac) for p in sw.ports),
            min_rate_bps=min((p.rate_bps for p in sw.ports), default=10**9),
        )
    return out
