"""Parse link rates ("10Mbps", "400Gbps", 1e9) and delays ("1us", "250ns", 1000) into integers.

Topology files are written by people, so they accept units; the rest of fabemu only ever
sees integer bits per second and integer nanoseconds.
"""

from __future__ import annotations

import re

from emulator.topology.errors import TopologyError

_RATE_UNITS = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
_TIME_UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
_NUM = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def _parse(value: object, units: dict[str, int], default_unit: str, what: str, where: str) -> int:
    if isinstance(value, bool):
        raise TopologyError(f"{where}: {what} must be a number or a string with a unit, not a bool")
    if isinstance(value, int | float):
        number, unit = float(value), default_unit
    elif isinstance(value, str):
        m = _NUM.match(value)
        if not m:
            raise TopologyError(f"{where}: cannot parse {what} {value!r} (e.g. '10Mbps', '1us')")
        number, unit = float(m.group(1)), (m.group(2) or default_unit).lower()
    else:
        raise TopologyError(
            f"{where}: {what} must be a number or a string, got {type(value).__name__}"
        )
    if unit not in units:
        raise TopologyError(
            f"{where}: unknown {what} unit {unit!r} in {value!r} (use one of {', '.join(units)})"
        )
    result = round(number * units[unit])
    if result < 0:
        raise TopologyError(f"{where}: {what} must not be negative")
    return result


def parse_rate(value: object, where: str = "rate") -> int:
    """Return a link rate in bits/s from an int/float (bits/s) or a string like '10Mbps'."""
    return _parse(value, _RATE_UNITS, "bps", "rate", where)


def parse_delay(value: object, where: str = "delay") -> int:
    """Return a delay in integer ns from an int (ns) or a string like '1us'."""
    return _parse(value, _TIME_UNITS, "ns", "delay", where)


def format_rate(bps: float) -> str:
    """Render bits/s compactly: 10000000 -> '10Mbps'."""
    for unit, mult in (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3)):
        if bps >= mult and bps % mult == 0:
            return f"{int(bps // mult)}{unit}"
    return f"{int(bps)}bps" if float(bps).is_integer() else f"{bps:g}bps"


def format_delay(ns: int) -> str:
    """Render integer ns compactly: 1000 -> '1us'."""
    for unit, mult in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= mult and ns % mult == 0:
            return f"{ns // mult}{unit}"
    return f"{ns}ns"
