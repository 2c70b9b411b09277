"""Resolve a spec into a concrete topology: names, device ids, ports, addresses, links.

Pure and deterministic: the same spec always gives the same :class:`ResolvedTopology`, and
the spec itself is never modified. Port numbering (ports start at 1; a host's port is 0)::

    leaf   1..G            hosts (gpu g on port g+1)
           G+1..G+U        uplinks; uplink k -> spine k % S (parallel link k // S)
    spine  1..R*P          leaf links ordered by (rack, parallel link); P = U / S
           R*P+1..         ATSW links; link k -> ATSW k % A
    agg    1..             spine links ordered by (zone, spine, parallel link)

Device ids: leaves 0.., then spines, then ATSWs (names: rtswN, ctswN, atswN, hosts hN,
numbered globally across zones).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from emulator.topology import addressing as ap
from emulator.topology.errors import TopologyError
from emulator.topology.spec import TopologySpec
from emulator.topology.validate import validate

if TYPE_CHECKING:
    import networkx as nx

Role = Literal["leaf", "spine", "agg"]
LinkKind = Literal["host", "fabric", "agg"]


@dataclass(frozen=True)
class Port:
    """One switch or host port and what is wired to it."""

    number: int
    intf: str
    mac: str
    peer: str
    peer_port: int
    rate_bps: int
    delay_ns: int
    kind: Literal["host", "down", "up"]  # host-facing, towards lower tier, towards upper tier


@dataclass(frozen=True)
class HostNode:
    """A GPU server with one RNIC (one port)."""

    name: str
    index: int
    zone: int
    rack: int  # rack within its zone
    gpu: int
    mac: str
    ip: str
    prefix_len: int
    gateway_ip: str
    gateway_mac: str
    leaf: str
    leaf_port: int
    port: Port


@dataclass(frozen=True)
class SwitchNode:
    """A leaf (RTSW), spine (CTSW) or aggregation (ATSW) switch."""

    name: str
    role: Role
    index: int  # global index within its role
    device_id: int
    zone: int | None  # None for ATSWs
    mac: str  # router MAC (port 0 of the MAC plan)
    loopback_ip: str
    ports: tuple[Port, ...]
    subnet: str | None = None  # leaves: the rack /24
    gateway_ip: str | None = None  # leaves: the rack gateway address

    def port(self, number: int) -> Port:
        """The port with this number (TopologyError if absent)."""
        for p in self.ports:
            if p.number == number:
                return p
        raise TopologyError(f"switch {self.name} has no port {number}")

    @property
    def host_ports(self) -> tuple[Port, ...]:
        """Host-facing ports (leaves only)."""
        return tuple(p for p in self.ports if p.kind == "host")

    @property
    def uplink_ports(self) -> tuple[Port, ...]:
        """Ports towards the next tier up."""
        return tuple(p for p in self.ports if p.kind == "up")

    @property
    def port_speeds_bps(self) -> dict[int, float]:
        """Port number -> line rate in bit/s (what a switch target is started with)."""
        return {p.number: float(p.rate_bps) for p in self.ports}

    @property
    def downlink_ports(self) -> tuple[Port, ...]:
        """Ports towards the tier below (switches)."""
        return tuple(p for p in self.ports if p.kind == "down")


@dataclass(frozen=True)
class Link:
    """A full-duplex link; ``a`` is the lower-tier end (host < leaf < spine < agg)."""

    a: str
    a_port: int
    b: str
    b_port: int
    rate_bps: int
    delay_ns: int
    kind: LinkKind


@dataclass(frozen=True)
class ResolvedTopology:
    """Everything derived from a spec; read-only."""

    spec: TopologySpec
    hosts: tuple[HostNode, ...]
    switches: tuple[SwitchNode, ...]
    links: tuple[Link, ...]

    @cached_property
    def _hosts(self) -> dict[str, HostNode]:
        return {h.name: h for h in self.hosts}

    @cached_property
    def _switches(self) -> dict[str, SwitchNode]:
        return {s.name: s for s in self.switches}

    @cached_property
    def _peers(self) -> dict[tuple[str, int], tuple[str, int]]:
        peers: dict[tuple[str, int], tuple[str, int]] = {}
        for link in self.links:
            peers[(link.a, link.a_port)] = (link.b, link.b_port)
            peers[(link.b, link.b_port)] = (link.a, link.a_port)
        return peers

    @property
    def name(self) -> str:
        """The spec's name."""
        return self.spec.name

    def host(self, name: str) -> HostNode:
        """The host called ``name`` (TopologyError if unknown)."""
        try:
            return self._hosts[name]
        except KeyError:
            raise TopologyError(f"topology {self.name}: no host {name!r}") from None

    def switch(self, name: str) -> SwitchNode:
        """The switch called ``name`` (TopologyError if unknown)."""
        try:
            return self._switches[name]
        except KeyError:
            raise TopologyError(f"topology {self.name}: no switch {name!r}") from None

    def is_host(self, name: str) -> bool:
        """True if ``name`` is a host of this topology."""
        return name in self._hosts

    def switches_by_role(self, role: Role) -> tuple[SwitchNode, ...]:
        """Switches with this role, in device-id order."""
        return tuple(s for s in self.switches if s.role == role)

    def peer(self, node: str, port: int) -> tuple[str, int]:
        """(node, port) at the other end of ``node``'s ``port``."""
        try:
            return self._peers[(node, port)]
        except KeyError:
            raise TopologyError(
                f"topology {self.name}: {node} port {port} is not connected"
            ) from None

    def links_between(self, a: str, b: str) -> tuple[Link, ...]:
        """All (parallel) links joining nodes ``a`` and ``b``, in either direction."""
        return tuple(lk for lk in self.links if {lk.a, lk.b} == {a, b})

    def graph(self) -> nx.MultiGraph:
        """A networkx MultiGraph view (nodes carry role/addresses; edges carry ports/rates)."""
        import networkx as nx

        g = nx.MultiGraph(name=self.name)
        for h in self.hosts:
            g.add_node(h.name, role="host", zone=h.zone, rack=h.rack, ip=h.ip, mac=h.mac)
        for s in self.switches:
            g.add_node(s.name, role=s.role, zone=s.zone, device_id=s.device_id)
        for lk in self.links:
            g.add_edge(
                lk.a,
                lk.b,
                a_port=lk.a_port,
                b_port=lk.b_port,
                rate_bps=lk.rate_bps,
                delay_ns=lk.delay_ns,
                kind=lk.kind,
            )
        return g

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (for YAML/JSON export)."""
        from dataclasses import asdict

        from emulator.topology.io import spec_to_dict

        return {
            "spec": spec_to_dict(self.spec),
            "hosts": [asdict(h) for h in self.hosts],
            "switches": [asdict(s) for s in self.switches],
            "links": [asdict(lk) for lk in self.links],
        }


def resolve(spec: TopologySpec, where: str = "topology") -> ResolvedTopology:
    """Validate ``spec`` and derive the full topology (raises TopologyError when invalid)."""
    if not isinstance(spec, TopologySpec):
        raise TopologyError(
            f"{where}: only an emulated Clos (kind: clos) can be resolved, not {type(spec).__name__}"
        )
    validate(spec, where)
    builder = _Builder(spec)
    return builder.build()


class _Builder:
    """Accumulates ports per node while links are laid out, then freezes everything."""

    def __init__(self, spec: TopologySpec) -> None:
        self.spec = spec
        self.ports: dict[str, list[Port]] = {}
        self.links: list[Link] = []
        z, r, s = spec.zones, spec.racks, spec.spines
        self.n_leaves, self.n_spines = z * r, z * s
        self.n_aggs = spec.aggs if z > 1 else 0
        self.dev: dict[str, int] = {}
        names = [ap.switch_name("leaf", i) for i in range(self.n_leaves)]
        names += [ap.switch_name("spine", i) for i in range(self.n_spines)]
        names += [ap.switch_name("agg", i) for i in range(self.n_aggs)]
        self.dev = {n: i for i, n in enumerate(names)}

    def _mac(self, node: str, port: int) -> str:
        return ap.switch_mac(self.dev[node], port)

    def _wire(
        self, a: str, ap_: int, b: str, bp: int, rate: int, delay: int, kind: LinkKind
    ) -> None:
        a_mac = self._mac(a, ap_) if a in self.dev else ""  # hosts get their MAC in build()
        self.links.append(Link(a, ap_, b, bp, rate, delay, kind))
        b_kind: Literal["host", "down"] = "host" if kind == "host" else "down"
        self.ports.setdefault(a, []).append(
            Port(ap_, ap.intf_name(a, ap_), a_mac, b, bp, rate, delay, "up")
        )
        self.ports.setdefault(b, []).append(
            Port(bp, ap.intf_name(b, bp), self._mac(b, bp), a, ap_, rate, delay, b_kind)
        )

    def _lay_links(self) -> None:
        sp = self.spec
        g, u, pp = sp.gpus_per_rack, sp.uplinks_per_leaf, sp.links_per_pair
        hl, fl, al = sp.host_link, sp.fabric_link, sp.agg_link
        for leaf in range(self.n_leaves):
            for gpu in range(g):
                host = ap.host_name(leaf * g + gpu)
                self._wire(
                    host,
                    ap.HOST_PORT,
                    ap.switch_name("leaf", leaf),
                    gpu + 1,
                    hl.rate_bps,
                    hl.delay_ns,
                    "host",
                )
        for leaf in range(self.n_leaves):
            zone, rack = divmod(leaf, sp.racks)
            for k in range(u):
                spine_local, par = k % sp.spines, k // sp.spines
                spine = zone * sp.spines + spine_local
                self._wire(
                    ap.switch_name("leaf", leaf),
                    g + 1 + k,
                    ap.switch_name("spine", spine),
                    1 + rack * pp + par,
                    fl.rate_bps,
                    fl.delay_ns,
                    "fabric",
                )
        if not self.n_aggs:
            return
        up, down = sp.spine_uplinks, sp.spine_downlinks
        per_agg = up // self.n_aggs  # parallel links per spine-ATSW pair
        for spine in range(self.n_spines):
            for k in range(up):
                agg, par = k % self.n_aggs, k // self.n_aggs
                self._wire(
                    ap.switch_name("spine", spine),
                    down + 1 + k,
                    ap.switch_name("agg", agg),
                    1 + spine * per_agg + par,
                    al.rate_bps,
                    al.delay_ns,
                    "agg",
                )

    def build(self) -> ResolvedTopology:
        sp = self.spec
        self._lay_links()
        hosts = []
        for idx in range(sp.hosts):
            leaf, gpu = divmod(idx, sp.gpus_per_rack)
            zone, rack = divmod(leaf, sp.racks)
            name, leaf_name = ap.host_name(idx), ap.switch_name("leaf", leaf)
            (port,) = self.ports[name]
            port = Port(
                port.number,
                port.intf,
                ap.host_mac(idx),
                port.peer,
                port.peer_port,
                port.rate_bps,
                port.delay_ns,
                "up",
            )
            hosts.append(
                HostNode(
                    name,
                    idx,
                    zone,
                    rack,
                    gpu,
                    ap.host_mac(idx),
                    ap.host_ip(zone, rack, gpu),
                    24,
                    ap.gateway_ip(zone, rack),
                    self._mac(leaf_name, gpu + 1),
                    leaf_name,
                    gpu + 1,
                    port,
                )
            )
        switches = [self._switch(n, d) for n, d in self.dev.items()]
        return ResolvedTopology(sp, tuple(hosts), tuple(switches), tuple(self.links))

    def _switch(self, name: str, dev: int) -> SwitchNode:
        sp = self.spec
        role: Role = (
            "leaf" if name.startswith("rtsw") else "spine" if name.startswith("ctsw") else "agg"
        )
        index = int(name[4:])
        ports = tuple(sorted(self.ports.get(name, []), key=lambda p: p.number))
        zone: int | None = None
        subnet = gw = None
        if role == "leaf":
            zone, rack = divmod(index, sp.racks)
            subnet, gw = ap.rack_subnet(zone, rack), ap.gateway_ip(zone, rack)
        elif role == "spine":
            zone = index // sp.spines
        return SwitchNode(
            name, role, index, dev, zone, ap.switch_mac(dev), ap.loopback_ip(dev), ports, subnet, gw
        )


def iter_ports(topo: ResolvedTopology) -> Iterator[tuple[str, Port]]:
    """Every (node name, port) of the topology, hosts first."""
    for h in topo.hosts:
        yield h.name, h.port
    for s in topo.switches:
        for p in s.ports:
            yield s.name, p
