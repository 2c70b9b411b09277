"""The scaler's fabric shape: Meta's AI Zone Clos at any size, RoCE or InfiniBand.

A frozen description plus integer coordinates for every GPU, so routing can work on arrays::

            atsw0 ... atsw{A-1}          ATSW layer (zones > 1): every CTSW has one link to
           /   |         |   \\           every ATSW; capacity set by the oversubscription
      ctsw(z,0) ... ctsw(z,S-1)          S spines (CTSW) per zone, non-blocking inside a zone
        |  \\  uplinks_per_leaf  / |       leaf uplink u -> spine u % S
      rtsw(z,0) ... rtsw(z,R-1)          R racks (RTSW leaves) per zone
       | .. |
      GPU slots 0..gpus_per_rack-1       hosts of gpus_per_host GPUs, one 400G NIC per GPU

GPU ``g`` lives in zone ``g // (R * gpus_per_rack)``, rack ``(g // gpus_per_rack) % R``,
slot ``g % gpus_per_rack``, host ``g // gpus_per_host``.  The last zone may be partial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.errors import UserError

if TYPE_CHECKING:  # the scaler reads the topology layer's description, never imports it
    from emulator.topology.scale import ScaleSpec

GBPS = 1e9

FABRIC_KINDS = ("roce", "ib")


@dataclass(frozen=True)
class ClosFabric:
    """An AI-Zone-shaped Clos fabric (see the module diagram); all rates in bits/s."""

    name: str
    kind: str  # "roce" or "ib"
    gpus: int
    gpus_per_host: int = 8
    gpus_per_rack: int = 16
    uplinks_per_leaf: int = 16
    spines: int = 16
    racks_per_zone: int = 192
    aggs: int = 0  # 0: as many fabric-rate links as the oversubscription asks for
    oversubscription: float = 7.0
    nic_bps: float = 400 * GBPS
    fabric_link_bps: float = 400 * GBPS
    nvlink_bps: float = 450e9 * 8  # H100 NVLink 4: 450 GB/s per direction

    def __post_init__(self) -> None:
        if self.kind not in FABRIC_KINDS:
            raise UserError(f"fabric kind {self.kind!r}: expected one of {', '.join(FABRIC_KINDS)}")
        for key in ("gpus", "gpus_per_host", "gpus_per_rack", "uplinks_per_leaf", "spines"):
            if getattr(self, key) < 1:
                raise UserError(f"fabric {self.name}: {key} must be >= 1, got {getattr(self, key)}")
        if self.racks_per_zone < 1 or self.aggs < 0 or self.oversubscription <= 0:
            raise UserError(
                f"fabric {self.name}: racks_per_zone and oversubscription must be > 0, aggs >= 0"
            )
        if self.aggs == 0:
            need = self.spine_down_bps / (self.oversubscription * self.fabric_link_bps)
            auto = max(1, math.ceil(need - 1e-9))  # as emulator.topology.scale: ceil
            object.__setattr__(self, "aggs", auto)
        if self.gpus_per_rack % self.gpus_per_host:
            raise UserError(
                f"fabric {self.name}: gpus_per_rack={self.gpus_per_rack} is not a multiple of "
                f"gpus_per_host={self.gpus_per_host}"
            )
        if self.gpus % self.gpus_per_host:
            raise UserError(
                f"fabric {self.name}: {self.gpus} GPUs is not a whole number of "
                f"{self.gpus_per_host}-GPU hosts"
            )
        if self.uplinks_per_leaf % self.spines:
            raise UserError(
                f"fabric {self.name}: uplinks_per_leaf={self.uplinks_per_leaf} must be a multiple "
                f"of spines={self.spines}"
            )

        limits = (
            (self.zones, 255, "zones"),
            (self.racks_per_zone, 256, "racks_per_zone"),
            (self.gpus_per_rack, 253, "gpus_per_rack"),
        )
        for value, limit, key in limits:
            if value > limit:
                raise UserError(
                    f"fabric {self.name}: {key}={value} exceeds the address plan's {limit} "
                    "(10.zone.rack.slot+1, emulator.topology.addressing)"
                )

    @property
    def gpus_per_zone(self) -> int:
        """GPUs in one full zone (pod)."""
        return self.gpus_per_rack * self.racks_per_zone

    @property
    def hosts(self) -> int:
        """Hosts (servers of ``gpus_per_host`` GPUs)."""
        return self.gpus // self.gpus_per_host

    @property
    def racks(self) -> int:
        """Racks (RTSW leaves) in use, the last possibly partial."""
        return math.ceil(self.gpus / self.gpus_per_rack)

    @property
    def zones(self) -> int:
        """Zones in use, the last possibly partial."""
        return math.ceil(self.gpus / self.gpus_per_zone)

    @property
    def leaf_uplink_bps(self) -> float:
        """Rate of one RTSW->CTSW link."""
        return self.fabric_link_bps

    @property
    def spine_down_bps(self) -> float:
        """Leaf-facing capacity of one spine (CTSW)."""
        return self.racks_per_zone * (self.uplinks_per_leaf // self.spines) * self.fabric_link_bps

    @property
    def agg_link_bps(self) -> float:
        """Rate of one CTSW<->ATSW link (each CTSW has one link to every ATSW)."""
        return self.fabric_link_bps

    @property
    def effective_oversubscription(self) -> float:
        """A spine's leaf-facing capacity over its ATSW-facing capacity (integer links)."""
        return self.spine_down_bps / (self.aggs * self.agg_link_bps)

    def describe(self) -> str:
        """One line for tables and reports."""
        return (
            f"{self.name}: {self.kind} {self.gpus} GPUs, {self.zones} zone(s) x "
            f"{self.racks_per_zone} racks x {self.gpus_per_rack} GPUs, {self.spines} spines, "
            f"{self.uplinks_per_leaf} uplinks/leaf, {self.aggs} ATSWs "
            f"1:{self.effective_oversubscription:.2f}"
        )


def meta_fabric(gpus: int, kind: str = "roce", **overrides: object) -> ClosFabric:
    """The Llama 3 cluster shape scaled to ``gpus`` GPUs (24,576 = 8 zones of 3,072).

    RoCE: 16-GPU racks (2 hosts), 16 RTSW uplinks to 16 CTSWs, 192 racks per zone (3,072
    GPUs, full bisection), 28 ATSW links per CTSW (1:6.86, the fewest whole 400G links
    giving at most 1:7).  InfiniBand: the same zones built from 64-port switches (32 down /
    32 up per leaf, 96 leaves per zone), 14 core links per spine (1:6.86).
    """
    if kind == "roce":
        base: dict[str, object] = {}
    elif kind == "ib":
        base = {"gpus_per_rack": 32, "uplinks_per_leaf": 32, "spines": 32, "racks_per_zone": 96}
    else:
        raise UserError(f"fabric kind {kind!r}: expected one of {', '.join(FABRIC_KINDS)}")
    base.update(overrides)
    base.setdefault("name", f"meta-{kind}-{gpus}")
    return ClosFabric(kind=kind, gpus=gpus, **base)  # type: ignore[arg-type]


#: Meta's published sizes: the Llama 3 24K cluster and a 100K-class extension (33 zones).
LLAMA3_GPUS = 24_576
EXTENSION_100K_GPUS = 33 * 3_072  # 101,376


def from_scale_spec(spec: ScaleSpec, kind: str = "roce", gpus: int | None = None) -> ClosFabric:
    """Adapt the topology layer's Meta-scale description (``emulator.topology.scale.ScaleSpec``).

    Every CTSW gets ``ceil(downlinks / oversubscription)`` ATSW-facing links, as the
    topology layer counts them; the scaler treats each link as one equal-cost member.
    """
    zones, per_zone = int(spec.zones), int(spec.gpus_per_zone)
    return ClosFabric(
        name=str(spec.name),
        kind=kind,
        gpus=gpus or zones * per_zone,
        gpus_per_rack=int(spec.gpus_per_rack),
        uplinks_per_leaf=int(spec.uplinks_per_leaf),
        spines=int(spec.spines_per_zone),
        racks_per_zone=per_zone // int(spec.gpus_per_rack),
        oversubscription=float(spec.oversubscription),
        nic_bps=float(spec.link_rate_bps),
        fabric_link_bps=float(spec.link_rate_bps),
    )
