"""Distributions over seeds: the median of a metric with an exact 95% interval, and the
probability of an event (e.g. "no uplink collision") with its exact binomial interval.

Median interval: the distribution-free order-statistic interval (``scipy.stats.quantile_test``
with p = 0.5: ranks chosen from the Binomial(n, 1/2) distribution, coverage >= 95% for any
continuous metric). It needs n >= 6 runs; with fewer it is left undefined (NaN).
Proportion interval: Clopper-Pearson (``scipy.stats.binomtest(...).proportion_ci("exact")``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
METHOD = "median with exact order-statistic 95% CI (scipy.stats.quantile_test, p=0.5)"
PROPORTION_METHOD = "proportion with exact Clopper-Pearson 95% CI (scipy.stats.binomtest)"


@dataclass(frozen=True)
class Summary:
    """One metric over ``n`` runs: median and its interval (NaN where undefined)."""

    n: int
    median: float
    low: float
    high: float

    def describe(self, fmt: str = "{:.4g}") -> str:
        """``median [low, high]`` (``median`` alone when the interval is undefined)."""
        med = fmt.format(self.median)
        if math.isnan(self.low) or math.isnan(self.high):
            return f"{med} (n={self.n})"
        return f"{med} [{fmt.format(self.low)}, {fmt.format(self.high)}]"


def median_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    """The median of ``values`` and its exact order-statistic interval."""
    x = np.asarray([v for v in values if math.isfinite(v)], dtype=float)
    if x.size == 0:
        nan = float("nan")
        return Summary(0, nan, nan, nan)
    med = float(np.median(x))
    if np.all(x == x[0]):
        return Summary(int(x.size), med, med, med)
    res = stats.quantile_test(x, q=med, p=0.5)
    ci = res.confidence_interval(confidence_level=confidence)
    return Summary(int(x.size), med, float(ci.low), float(ci.high))


def proportion_ci(successes: int, n: int, confidence: float = CONFIDENCE) -> Summary:
    """A proportion ``successes / n`` and its Clopper-Pearson interval (as a Summary)."""
    if n <= 0:
        nan = float("nan")
        return Summary(0, nan, nan, nan)
    ci = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="exact")
    return Summary(n, successes / n, float(ci.low), float(ci.high))


def binomial_pvalue(successes: int, n: int, p: float) -> float:
    """Two-sided exact binomial test p-value of ``successes`` in ``n`` against ``p``."""
    return float(stats.binomtest(successes, n, p).pvalue)


def summarize(runs: Iterable[Mapping[str, float]]) -> dict[str, Summary]:
    """Per metric name, the median and interval over the runs that have it."""
    per: dict[str, list[float]] = {}
    for metrics in runs:
        for name, value in metrics.items():
            per.setdefault(name, []).append(float(value))
    return {name: median_ci(vals) for name, vals in sorted(per.items())}


def no_collision_probability(flows: int, uplinks: int) -> float:
    """P(no two of ``flows`` flows share an uplink), each on an independent uniform uplink:
    ``uplinks! / (uplinks - flows)! / uplinks^flows`` (4 on 4: 4!/4^4 = 9.375%)."""
    if flows > uplinks:
        return 0.0
    return math.perm(uplinks, flows) / uplinks**flows
