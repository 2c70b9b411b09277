"""Per-seed slowdown of a fault variant against its fault-free twin variant, over seeds.

A scenario that names variants ``X`` and ``X_nofault`` (``scenarios/training_step_faults.yaml``)
runs both with the same seeds; the slowdown is paired per seed (the same placement, QPNs
and hashing with and without the fault): ``time(X, seed) / time(X_nofault, seed)``, the time
being the training step (``step_ms``) or else the slowest collective (``collective_ms``).
Its median and exact 95% interval over the seeds join ``fabemu compare --seeds``'s table
as ``slowdown_vs_nofault``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.scenario.distributions import Summary, median_ci

TWIN_SUFFIX = "_nofault"
TIME_METRICS = ("step_ms", "collective_ms")
METRIC = "slowdown_vs_nofault"


def twin_label(label: str) -> str | None:
    """The fault-free twin's label of a compare label (``variant=pinning,qps=1`` ->
    ``variant=pinning_nofault,qps=1``); None when the label names no variant or is a twin."""
    parts = label.split(",")
    for i, part in enumerate(parts):
        key, _, value = part.partition("=")
        if key == "variant" and value and not value.endswith(TWIN_SUFFIX):
            return ",".join([*parts[:i], f"variant={value}{TWIN_SUFFIX}", *parts[i + 1 :]])
    return None


def _by_seed(runs: Sequence[tuple[Any, Any]]) -> dict[int, Mapping[str, float]]:
    return {o.result.meta.seed: o.metrics for _, o in runs}


def paired_slowdowns(groups: Mapping[str, Sequence[tuple[Any, Any]]]) -> dict[str, Summary]:
    """label -> the median [95% CI] of its per-seed slowdown against its twin variant (only
    labels whose twin ran, over the seeds both finished with a time metric)."""
    out: dict[str, Summary] = {}
    for label, runs in groups.items():
        twin = twin_label(label)
        if twin is None or twin not in groups:
            continue
        mine, base = _by_seed(runs), _by_seed(groups[twin])
        ratios = []
        for seed in sorted(set(mine) & set(base)):
            key = next((k for k in TIME_METRICS if k in mine[seed] and base[seed].get(k)), None)
            if key is not None:
                ratios.append(mine[seed][key] / base[seed][key])
        if ratios:
            out[label] = median_ci(ratios)
    return out
