"""Evaluate a scenario's expectations against the run's summary metrics."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from emulator.scenario.schema import Bound


@dataclass(frozen=True)
class Verdict:
    """One expectation's outcome."""

    metric: str
    value: float | None
    bound: str
    met: bool

    def describe(self) -> str:
        """``metric = value (bound): met|NOT met`` for tables and logs."""
        shown = "missing" if self.value is None else f"{self.value:.4g}"
        return f"{self.metric} = {shown} ({self.bound}): {'met' if self.met else 'NOT met'}"


def _bound_text(bound: Bound) -> str:
    parts = []
    if bound.min is not None:
        parts.append(f">= {bound.min:g}")
    if bound.max is not None:
        parts.append(f"<= {bound.max:g}")
    if bound.eq is not None:
        parts.append(f"== {bound.eq:g}")
    return ", ".join(parts)


def evaluate(expect: Mapping[str, Bound], metrics: Mapping[str, float]) -> list[Verdict]:
    """Check each bound; a metric the run did not produce is not met."""
    verdicts = []
    for name, bound in expect.items():
        value = metrics.get(name)
        ok = value is not None and not math.isnan(value)
        if value is not None and ok:
            if bound.min is not None:
                ok = value >= bound.min
            if ok and bound.max is not None:
                ok = value <= bound.max
            if ok and bound.eq is not None:
                ok = math.isclose(value, bound.eq, rel_tol=1e-9, abs_tol=1e-12)
        verdicts.append(Verdict(name, value, _bound_text(bound), bool(ok)))
    return verdicts
