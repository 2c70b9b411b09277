"""Frozen topology specs: a scaled-down Meta "AI Zone" Clos, kept apart from any runtime.

A spec says *what* to build (counts, rates, delays); :func:`emulator.topology.resolve.resolve`
derives everything else (names, ports, addresses, links) without writing back into it::

        atsw0 ............ atsw{A-1}           (optional: zones > 1, oversubscribed)
          |  \\             /  |
        ctsw*  (spines, per zone)             CTSW: cluster spine
          | \\  / |   uplinks_per_leaf links per leaf, spread round-robin over spines
        rtsw*  (leaves = racks, per zone)     RTSW: rack switch
        / | \\
      h*  h*  h*   gpus_per_rack hosts (one RNIC each = one GPU)
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Meta's production link rate (400 Gb/s RoCE); scaled-down rates are expressed against it.
META_LINK_RATE_BPS = 400 * 10**9


@dataclass(frozen=True)
class LinkSpec:
    """Rate and one-way propagation delay of one class of links."""

    rate_bps: int = 10 * 10**6
    delay_ns: int = 1_000


@dataclass(frozen=True)
class TopologySpec:
    """A Clos of ``zones`` identical AI Zones (RTSW leaves + CTSW spines), joined by ATSWs.

    ``uplinks_per_leaf`` links leave each leaf; uplink ``k`` goes to spine ``k % spines``, so
    ``uplinks_per_leaf`` must be a multiple of ``spines`` (parallel links per pair allowed).
    With several zones every spine gets ``down capacity / oversubscription`` of uplink
    capacity towards the ``aggs`` ATSWs (uplink ``k`` to ATSW ``k % aggs``).
    """

    name: str
    racks: int
    gpus_per_rack: int
    spines: int
    uplinks_per_leaf: int
    zones: int = 1
    aggs: int = 0
    oversubscription: float = 1.0
    radix: int = 64
    host_link: LinkSpec = field(default_factory=LinkSpec)
    fabric_link: LinkSpec = field(default_factory=LinkSpec)
    agg_link: LinkSpec = field(default_factory=LinkSpec)
    reference_rate_bps: int = META_LINK_RATE_BPS
    description: str = ""

    @property
    def hosts(self) -> int:
        """Total hosts (GPUs, one RNIC each)."""
        return self.zones * self.racks * self.gpus_per_rack

    @property
    def links_per_pair(self) -> int:
        """Parallel links between one leaf and one spine (0 if not a whole number)."""
        if self.spines <= 0 or self.uplinks_per_leaf % self.spines:
            return 0
        return self.uplinks_per_leaf // self.spines

    @property
    def leaf_oversubscription(self) -> float:
        """Host capacity / uplink capacity of one leaf (1.0 = non-blocking, as in Meta's zones)."""
        up = self.uplinks_per_leaf * self.fabric_link.rate_bps
        return self.gpus_per_rack * self.host_link.rate_bps / up if up else float("inf")

    @property
    def spine_downlinks(self) -> int:
        """Leaf-facing links of one spine."""
        return self.racks * self.links_per_pair

    @property
    def spine_uplinks_exact(self) -> float:
        """ATSW-facing links one spine needs for the requested oversubscription (may be fractional)."""
        if self.zones <= 1 or self.oversubscription <= 0 or self.agg_link.rate_bps <= 0:
            return 0.0
        down = self.spine_downlinks * self.fabric_link.rate_bps
        return down / (self.oversubscription * self.agg_link.rate_bps)

    @property
    def spine_uplinks(self) -> int:
        """ATSW-facing links of one spine (0 for a single zone)."""
        return round(self.spine_uplinks_exact)

    @property
    def rate_scale(self) -> float:
        """Host link rate over Meta's 400 Gb/s: how much slower the emulated fabric runs."""
        return self.host_link.rate_bps / self.reference_rate_bps
