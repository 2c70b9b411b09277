"""RunResult pieces both runtimes assemble the same way (virtual time and Mininet)::

    virtual.result.build_result ┐
                                ├──► P4_COUNTERS, numeric(), finished_meta() ──► RunResult
    mininet.collect ────────────┘

Keeping them here keeps the two runtimes' results comparable key for key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.control import names
from emulator.measure.results import RunMeta

#: program counters summed over ports x 8 priorities when the program has them (index
#: port * 8 + priority, the p4/roce_fabric.p4 layout): result key -> counter name
P4_COUNTERS = {
    "p4_ecn_marks": names.ECN_MARK_COUNTER,
    "p4_drops": names.DROP_COUNTER,
    "p4_pfc_tx": names.PFC_TX_COUNTER,
}


def numeric(d: Mapping[str, Any]) -> dict[str, float]:
    """The int and float entries of a counter dict, as floats (booleans and others left out)."""
    return {
        k: float(v) for k, v in d.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


def finished_meta(meta: RunMeta, end_ns: int, incomplete: Sequence[str]) -> RunMeta:
    """``meta`` stamped with the run's end; marked incomplete, with the reasons, when any.

    A reason the caller already set (``interrupted``, a wall-clock limit) stays first: it is
    why the workload did not finish."""
    update: dict[str, Any] = {"end_ns": end_ns}
    if incomplete:
        reasons = [meta.incomplete_reason] if meta.incomplete_reason else []
        update.update(complete=False, incomplete_reason="; ".join([*reasons, *incomplete]))
    return meta.model_copy(update=update)
