"""Flat metrics of a run's ``faults`` section (what ``expect:`` and ``fabemu compare`` see).

fault_packets_lost      frames lost to every fault (down links, loss, stuck hosts)
fault_retransmissions   RNIC retransmitted packets over the run
time_to_detect_ms       the slowest fault's link event -> repair installed
time_to_repair_ms       the slowest fault's recovery (emulator.faults.report)
qp_errors               QPs whose retries ran out (a real job would abort)
icrc_errors             frames the receivers dropped for a bad ICRC
slowdown                collective (or last flow) time / the fault-free twin's
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FAULT_METRICS = (
    "fault_packets_lost",
    "fault_retransmissions",
    "time_to_detect_ms",
    "time_to_repair_ms",
    "qp_errors",
    "icrc_errors",
    "slowdown",
)


def _worst(entries: list[Mapping[str, Any]], key: str) -> float | None:
    values = [float(e[key]) for e in entries if e.get(key) is not None]
    return max(values) if values else None


def fault_metrics(section: Mapping[str, Any]) -> dict[str, float]:
    """The metrics above; a figure the run did not produce is left out."""
    entries = list(section.get("faults", []))
    out = {
        "fault_packets_lost": float(sum(e.get("packets_lost") or 0 for e in entries)),
        "fault_retransmissions": float(section.get("retransmissions", 0)),
        "qp_errors": float(section.get("qp_errors", 0)),
        "icrc_errors": float(section.get("icrc_errors", 0)),
    }
    for key in ("time_to_detect_ms", "time_to_repair_ms"):
        worst = _worst(entries, key)
        if worst is not None:
            out[key] = worst
    if section.get("slowdown") is not None:
        out["slowdown"] = float(section["slowdown"])
    return out
