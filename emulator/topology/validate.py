"""Check a :class:`TopologySpec` before anything is built; every problem is a TopologyError."""

from __future__ import annotations

import re

from emulator.topology.addressing import MAX_PORT, check_plan
from emulator.topology.errors import TopologyError
from emulator.topology.spec import LinkSpec, TopologySpec

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


def _positive(where: str, key: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise TopologyError(f"{where}: {key} must be a whole number >= 1, got {value!r}")


def _link(where: str, key: str, link: LinkSpec) -> None:
    if link.rate_bps <= 0:
        raise TopologyError(f"{where}: {key}.rate must be > 0, got {link.rate_bps} bps")
    if link.delay_ns < 0:
        raise TopologyError(f"{where}: {key}.delay must be >= 0, got {link.delay_ns} ns")


def validate(spec: TopologySpec, where: str = "topology") -> None:
    """Raise :class:`TopologyError` naming the first inconsistency of ``spec``."""
    if not isinstance(spec.name, str) or not _NAME.match(spec.name):
        raise TopologyError(
            f"{where}: name {spec.name!r} must start with a letter and use letters, digits, '_.-'"
        )
    for key in ("zones", "racks", "gpus_per_rack", "spines", "uplinks_per_leaf", "radix"):
        _positive(where, key, getattr(spec, key))
    check_plan(spec, where)
    if not isinstance(spec.aggs, int) or spec.aggs < 0:
        raise TopologyError(f"{where}: aggs must be a whole number >= 0, got {spec.aggs!r}")
    _link(where, "links.host", spec.host_link)
    _link(where, "links.fabric", spec.fabric_link)
    if spec.radix > MAX_PORT:
        raise TopologyError(
            f"{where}: radix={spec.radix} exceeds {MAX_PORT} ports (BMv2 port 511 = drop)"
        )
    if spec.uplinks_per_leaf % spec.spines:
        raise TopologyError(
            f"{where}: uplinks_per_leaf={spec.uplinks_per_leaf} is not a multiple of "
            f"spines={spec.spines} (each leaf needs the same number of links to every spine)"
        )
    leaf_ports = spec.gpus_per_rack + spec.uplinks_per_leaf
    if leaf_ports > spec.radix:
        raise TopologyError(
            f"{where}: a leaf needs {spec.gpus_per_rack} host ports + {spec.uplinks_per_leaf} "
            f"uplinks = {leaf_ports} ports, more than radix={spec.radix}"
        )
    if spec.zones == 1:
        if spec.aggs:
            raise TopologyError(f"{where}: aggs={spec.aggs} needs zones > 1 (ATSWs join zones)")
    else:
        _check_aggs(spec, where)
    spine_ports = spec.spine_downlinks + spec.spine_uplinks
    if spine_ports > spec.radix:
        raise TopologyError(
            f"{where}: a spine needs {spec.spine_downlinks} leaf links + {spec.spine_uplinks} "
            f"ATSW links = {spine_ports} ports, more than radix={spec.radix}"
        )
    if spec.zones > 1:
        agg_ports = spec.zones * spec.spines * spec.spine_uplinks // spec.aggs
        if agg_ports > spec.radix:
            raise TopologyError(
                f"{where}: an ATSW needs {agg_ports} spine links, more than radix={spec.radix}"
            )
    if spec.reference_rate_bps <= 0:
        raise TopologyError(f"{where}: reference_rate must be > 0")


def _check_aggs(spec: TopologySpec, where: str) -> None:
    if spec.aggs < 1:
        raise TopologyError(f"{where}: zones={spec.zones} needs aggs >= 1 (the ATSW layer)")
    _link(where, "links.agg", spec.agg_link)
    if not isinstance(spec.oversubscription, int | float) or spec.oversubscription < 1:
        raise TopologyError(
            f"{where}: oversubscription must be >= 1 (1 = non-blocking), got {spec.oversubscription!r}"
        )
    exact = spec.spine_uplinks_exact
    if exact < 1 or abs(exact - round(exact)) > 1e-9:
        raise TopologyError(
            f"{where}: oversubscription={spec.oversubscription:g} needs {exact:.3g} ATSW links per "
            f"spine ({spec.spine_downlinks} leaf links x {spec.fabric_link.rate_bps} bps / "
            f"({spec.oversubscription:g} x {spec.agg_link.rate_bps} bps)); pick values giving a "
            "whole number >= 1"
        )
    if spec.spine_uplinks % spec.aggs:
        raise TopologyError(
            f"{where}: {spec.spine_uplinks} ATSW links per spine do not spread evenly over "
            f"aggs={spec.aggs}"
        )
