"""Render a resolved Clos topology as an ibsim fabric description (ibnetdiscover format).

Node ids are the topology's names (``rtsw0``, ``ctsw1``, ``h3``); switch ports keep their
topology numbers, and each host's single RNIC is HCA port 1 (:data:`HCA_PORT`; the
topology calls it port 0).
"""

from __future__ import annotations

from emulator.templating import package_env
from emulator.topology.resolve import ResolvedTopology

#: The IB port number of every host's (single-port) HCA.
HCA_PORT = 1


def ib_port(topo: ResolvedTopology, node: str, port: int) -> int:
    """The IB port number of topology ``(node, port)`` (hosts: port 0 -> HCA port 1)."""
    return HCA_PORT if topo.is_host(node) else port


def render_netfile(topo: ResolvedTopology) -> str:
    """The ibsim net file text describing every switch, HCA and link of ``topo``."""
    switches = [
        {
            "name": s.name,
            "nports": max(p.number for p in s.ports),
            "ports": [
                {
                    "number": p.number,
                    "peer": p.peer,
                    "peer_port": ib_port(topo, p.peer, p.peer_port),
                }
                for p in s.ports
            ],
        }
        for s in topo.switches
    ]
    hosts = [{"name": h.name, "leaf": h.leaf, "leaf_port": h.leaf_port} for h in topo.hosts]
    return (
        package_env("emulator.ib")
        .get_template("ibsim.net.j2")
        .render(name=topo.name, switches=switches, hosts=hosts)
    )
