"""Job interruptions and goodput at scale from per-component failure rates.

A synchronous training job stops whenever any component it uses fails, so its interruption
rate is the sum over components of (count x failure rate)::

    interruptions/day(N) = links(N) r_link + switches(N) r_switch + nics(N) r_nic + gpus(N) r_other

Defaults come from the Llama 3 report (Dubey et al. 2024, table 5): 466 interruptions in
54 days on 16,384 GPUs, 419 of them unexpected; of those 8.4% network switches and cables
and 1.7% NICs. The switch/cable share is split between switches and cables (``switch_share``,
an assumption: the report does not split it); the rest of the interruptions (GPUs, hosts,
software, planned maintenance) scale with the GPU count. Component counts come from the
Meta cluster shape (emulator.scaler.model.fabric.meta_fabric): one NIC per GPU, one cable
per NIC, RTSW uplinks, CTSW-ATSW links across zones.

Goodput with periodic checkpoints (Young/Daly): checkpoint every ``tau = sqrt(2 C M)`` for
checkpoint cost ``C`` and mean time between interruptions ``M``; each interruption loses
half an interval of work on average plus the restart time ``R``::

    goodput = 1 - C / tau - (tau / 2 + R) / M        (clamped at 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from emulator.errors import UserError
from emulator.scaler.model.fabric import meta_fabric

#: Llama 3 (table 5): 54 days on 16,384 H100s
LLAMA3_DAYS = 54.0
LLAMA3_GPUS = 16_384
LLAMA3_INTERRUPTIONS = 466
LLAMA3_UNEXPECTED = 419
LLAMA3_SWITCH_CABLE = 0.084  # of the unexpected interruptions
LLAMA3_NIC = 0.017


@dataclass(frozen=True)
class ComponentCounts:
    """What one job of ``gpus`` GPUs depends on."""

    gpus: int
    nics: int
    switches: int
    links: int


def component_counts(gpus: int) -> ComponentCounts:
    """Counts for ``gpus`` GPUs in the Meta RoCE cluster shape (zones of 3,072 GPUs)."""
    f = meta_fabric(gpus, "roce")
    spines = f.zones * f.spines
    aggs = f.aggs if f.zones > 1 else 0
    links = f.gpus + f.racks * f.uplinks_per_leaf + (spines * aggs)
    return ComponentCounts(f.gpus, f.gpus, f.racks + spines + aggs, links)


@dataclass(frozen=True)
class FailureRates:
    """Interruptions per component per day."""

    link: float
    switch: float
    nic: float
    other_per_gpu: float  # GPUs, hosts, software, planned maintenance

    def __post_init__(self) -> None:
        for name in ("link", "switch", "nic", "other_per_gpu"):
            v = getattr(self, name)
            if not (v >= 0 and math.isfinite(v)):
                raise UserError(f"failure rate {name} must be a finite number >= 0, got {v}")

    def scaled(self, factor: float) -> FailureRates:
        """Every rate times ``factor``."""
        return FailureRates(
            self.link * factor,
            self.switch * factor,
            self.nic * factor,
            self.other_per_gpu * factor,
        )


def llama3_rates(switch_share: float = 0.5) -> FailureRates:
    """Per-component daily rates that reproduce Llama 3's 466 interruptions in 54 days."""
    if not 0 <= switch_share <= 1:
        raise UserError(f"switch_share must be in 0..1, got {switch_share}")
    c = component_counts(LLAMA3_GPUS)
    net = LLAMA3_SWITCH_CABLE * LLAMA3_UNEXPECTED / LLAMA3_DAYS
    nic = LLAMA3_NIC * LLAMA3_UNEXPECTED / LLAMA3_DAYS
    other = LLAMA3_INTERRUPTIONS / LLAMA3_DAYS - net - nic
    return FailureRates(
        link=net * (1 - switch_share) / c.links,
        switch=net * switch_share / c.switches,
        nic=nic / c.nics,
        other_per_gpu=other / c.gpus,
    )


@dataclass(frozen=True)
class Reliability:
    """Expected interruptions and goodput of one job size."""

    gpus: int
    per_day: float
    network_per_day: float  # links + switches + NICs
    mtbi_hours: float
    checkpoint_interval_s: float
    goodput: float


def interruptions_per_day(counts: ComponentCounts, rates: FailureRates) -> tuple[float, float]:
    """(all, network-only: links + switches + NICs) expected interruptions per day."""
    net = counts.links * rates.link + counts.switches * rates.switch + counts.nics * rates.nic
    return net + counts.gpus * rates.other_per_gpu, net


def check_times(checkpoint_s: float, restart_s: float) -> None:
    """Refuse a checkpoint time that is not > 0 s or a restart time that is not >= 0 s
    (NaN and infinity included: they would only print ``nan`` rows)."""
    if not (math.isfinite(checkpoint_s) and checkpoint_s > 0):
        raise UserError(f"checkpoint time must be a finite number > 0 s, got {checkpoint_s}")
    if not (math.isfinite(restart_s) and restart_s >= 0):
        raise UserError(f"restart time must be a finite number >= 0 s, got {restart_s}")


def goodput(per_day: float, checkpoint_s: float, restart_s: float) -> tuple[float, float]:
    """(goodput fraction, checkpoint interval s) under Young/Daly checkpointing."""
    check_times(checkpoint_s, restart_s)
    if per_day <= 0:
        return 1.0, math.inf
    mtbi = 86_400.0 / per_day
    tau = math.sqrt(2 * checkpoint_s * mtbi)
    return max(0.0, 1 - checkpoint_s / tau - (tau / 2 + restart_s) / mtbi), tau


def reliability(
    gpus: int, rates: FailureRates, checkpoint_s: float = 30.0, restart_s: float = 300.0
) -> Reliability:
    """Interruptions per day and goodput of a ``gpus``-GPU job."""
    per_day, net = interruptions_per_day(component_counts(gpus), rates)
    good, tau = goodput(per_day, checkpoint_s, restart_s)
    mtbi_h = 24.0 / per_day if per_day > 0 else math.inf
    return Reliability(gpus, per_day, net, mtbi_h, tau, good)


def reliability_rows(
    gpu_counts: list[int], checkpoint_s: float, restart_s: float, switch_share: float = 0.5
) -> dict[str, dict[str, float]]:
    """Table rows (``fabemu scale --reliability``): one per GPU count, Llama 3 rates."""
    rates = llama3_rates(switch_share)
    rows: dict[str, dict[str, float]] = {}
    for g in gpu_counts:
        r = reliability(g, rates, checkpoint_s, restart_s)
        rows[f"{g:,} GPUs"] = {
            "interruptions/day": r.per_day,
            "network/day": r.network_per_day,
            "MTBI h": r.mtbi_hours,
            "checkpoint every s": r.checkpoint_interval_s,
            "goodput": r.goodput,
        }
    return rows
