"""What OpenSM assigned: LIDs per node and every switch's linear forwarding table (typed).

Parsed from OpenSM's ``opensm-subnet.lst`` (base LIDs) and ``ibroute <lid>`` output (the
LFT each simulated switch actually holds, read back over SMPs). :meth:`IbRouting.walk`
follows the LFTs hop by hop over the resolved topology.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from emulator.errors import UserError
from emulator.topology.resolve import ResolvedTopology

ENGINES = ("ftree", "updn", "minhop")

_SUBNET_NODE = re.compile(r"\{([^{}\s]+)\} LID:([0-9A-Fa-f]+)")
_LFT_HEADER = re.compile(r"^Unicast lids \[[^\]]*\] of switch Lid (\d+) .*\((\S+)\):")
_LFT_ROW = re.compile(r"^0x([0-9a-fA-F]+) (\d+) : \((?:.*'([^']+)'\))?")
_NO_PORT = 255


class IbRoutingError(UserError):
    """OpenSM's routing could not be read back, or does not route the fabric."""


@dataclass(frozen=True)
class IbRouting:
    """LIDs and LFTs of one OpenSM run on one topology."""

    engine: str
    lmc: int
    base_lids: dict[str, int]  # node name -> base LID
    lfts: dict[str, dict[int, int]]  # switch name -> {destination LID: output port}
    owners: dict[int, str] = field(default_factory=dict)  # LID -> node name

    def lids(self, node: str) -> tuple[int, ...]:
        """Every LID of ``node``: 2**lmc for an HCA port, the base LID for a switch."""
        base = self.base_lids[node]
        n = 1 if node in self.lfts else 1 << self.lmc
        return tuple(range(base, base + n))

    def owner(self, lid: int) -> str:
        """The node a LID belongs to."""
        if lid in self.owners:
            return self.owners[lid]
        for node in self.base_lids:
            if lid in self.lids(node):
                return node
        raise IbRoutingError(f"LID {lid} is not assigned")

    def walk(self, topo: ResolvedTopology, src: str, dlid: int) -> list[tuple[str, int]]:
        """The (switch, output port) hops a packet from host ``src`` to ``dlid`` takes.

        Raises IbRoutingError on a loop, a missing LFT entry or a wrong destination.
        """
        node, _ = topo.peer(src, 0)
        hops: list[tuple[str, int]] = []
        dst = self.owner(dlid)
        for _ in range(len(self.lfts) + 1):
            port = self.lfts[node].get(dlid)
            if port is None:
                raise IbRoutingError(f"{node} has no LFT entry for LID {dlid}")
            hops.append((node, port))
            if port == 0:
                nxt = node
            else:
                nxt, _ = topo.peer(node, port)
            if nxt == dst:
                return hops
            if nxt not in self.lfts:
                raise IbRoutingError(f"LID {dlid}: {node} port {port} leads to {nxt}, not {dst}")
            node = nxt
        raise IbRoutingError(f"LID {dlid} from {src}: forwarding loop {hops}")


def parse_subnet_lst(text: str) -> dict[str, int]:
    """Node name -> base LID from OpenSM's ``opensm-subnet.lst``."""
    lids: dict[str, int] = {}
    for name, lid in _SUBNET_NODE.findall(text):
        lids[name] = int(lid, 16)
    if not lids:
        raise IbRoutingError("opensm-subnet.lst lists no nodes (did the SM bring the subnet up?)")
    return lids


def parse_ibroute(text: str) -> tuple[str, dict[int, int], dict[int, str]]:
    """(switch, {LID: port}, {base LID: destination name}) from one ``ibroute -a`` dump."""
    switch = ""
    lft: dict[int, int] = {}
    names: dict[int, str] = {}
    for line in text.splitlines():
        if m := _LFT_HEADER.match(line):
            switch = m.group(2)
        elif m := _LFT_ROW.match(line):
            lid, port = int(m.group(1), 16), int(m.group(2))
            if port != _NO_PORT:
                lft[lid] = port
            if m.group(3):
                names[lid] = m.group(3)
    if not switch:
        raise IbRoutingError(f"not an ibroute LFT dump: {text[:200]!r}")
    return switch, lft, names
