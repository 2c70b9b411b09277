"""Meta-scale cluster descriptions, counted analytically (never instantiated).

The shape matches the emulated Clos (RTSW leaves, CTSW spines per AI Zone, ATSWs between
zones) so the analytic scaler can reason about 24K or 100K GPUs without building them.
Defaults follow the Llama 3 paper's RoCE cluster: 16 GPUs per rack, AI Zones ("pods") of
3,072 GPUs with full bisection, 8 zones (24,576 GPUs), 1:7 oversubscription above the zones.
The number of CTSWs per zone (16: one uplink from every RTSW to each) and of ATSWs are our
assumptions; the public sources do not fix them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from emulator.topology.errors import TopologyError
from emulator.topology.spec import META_LINK_RATE_BPS


@dataclass(frozen=True)
class ScaleSpec:
    """A large Clos described by counts only; see :meth:`counts`."""

    name: str
    zones: int = 8
    gpus_per_zone: int = 3072
    gpus_per_rack: int = 16
    spines_per_zone: int = 16
    uplinks_per_leaf: int = 16
    aggs: int = 18
    oversubscription: float = 7.0
    link_rate_bps: int = META_LINK_RATE_BPS
    description: str = ""

    def validate(self, where: str = "scale") -> None:
        """Raise TopologyError when the counts are inconsistent."""
        for key in (
            "zones",
            "gpus_per_zone",
            "gpus_per_rack",
            "spines_per_zone",
            "uplinks_per_leaf",
        ):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise TopologyError(f"{where}: {key} must be a whole number >= 1, got {value!r}")
        if self.gpus_per_zone % self.gpus_per_rack:
            raise TopologyError(
                f"{where}: gpus_per_zone={self.gpus_per_zone} is not a multiple of "
                f"gpus_per_rack={self.gpus_per_rack}"
            )
        if self.uplinks_per_leaf % self.spines_per_zone:
            raise TopologyError(
                f"{where}: uplinks_per_leaf={self.uplinks_per_leaf} is not a multiple of "
                f"spines_per_zone={self.spines_per_zone}"
            )
        if self.oversubscription < 1:
            raise TopologyError(
                f"{where}: oversubscription must be >= 1, got {self.oversubscription}"
            )
        if self.zones > 1 and self.aggs < 1:
            raise TopologyError(f"{where}: zones={self.zones} needs aggs >= 1")
        if self.link_rate_bps <= 0:
            raise TopologyError(f"{where}: link_rate must be > 0")

    @property
    def gpus(self) -> int:
        """Total GPUs."""
        return self.zones * self.gpus_per_zone

    @property
    def racks_per_zone(self) -> int:
        """RTSWs per zone."""
        return self.gpus_per_zone // self.gpus_per_rack

    def counts(self) -> dict[str, Any]:
        """Switches per layer, links per layer and bisection bandwidths (bits/s)."""
        rate = self.link_rate_bps
        racks = self.racks_per_zone
        spine_down = racks * self.uplinks_per_leaf // self.spines_per_zone
        multi = self.zones > 1
        spine_up = math.ceil(spine_down / self.oversubscription) if multi else 0
        zone_up_bps = self.spines_per_zone * spine_up * rate
        zone_bisection = min(self.gpus_per_zone * rate, racks * self.uplinks_per_leaf * rate) // 2
        if multi:
            cluster_bisection = min((self.zones // 2) * zone_up_bps, self.gpus * rate // 2)
        else:
            cluster_bisection = zone_bisection
        agg_links = self.zones * self.spines_per_zone * spine_up
        return {
            "gpus": self.gpus,
            "zones": self.zones,
            "switches": {
                "rtsw": self.zones * racks,
                "ctsw": self.zones * self.spines_per_zone,
                "atsw": self.aggs if multi else 0,
            },
            "links": {
                "host": self.gpus,
                "rtsw_ctsw": self.zones * racks * self.uplinks_per_leaf,
                "ctsw_atsw": agg_links,
            },
            "ports": {
                "rtsw": self.gpus_per_rack + self.uplinks_per_leaf,
                "ctsw": spine_down + spine_up,
                "atsw": math.ceil(agg_links / self.aggs) if multi else 0,
            },
            "oversubscription": {
                "requested": self.oversubscription if multi else 1.0,
                "actual": spine_down / spine_up if multi else 1.0,
                "leaf": self.gpus_per_rack / self.uplinks_per_leaf,
            },
            "bisection_bps": {"zone": zone_bisection, "cluster": cluster_bisection},
            "zone_uplink_bps": zone_up_bps,
        }
