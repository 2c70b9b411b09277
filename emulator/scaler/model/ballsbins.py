"""Closed forms for hashing ``m`` flows onto ``n`` equal links (balls into bins).

Uniform independent hashing is the reference the measured (real CRC) placements are
compared with.  Exact distributions use the Poissonisation identity::

    P(max load <= t) = P(X_1..X_n <= t, sum X = m) / P(sum X = m),   X_i ~ Poisson(m/n)

computed by n-fold convolution of the truncated Poisson pmf (stable in floating point).
"""

from __future__ import annotations

import math

import numpy as np


def p_no_collision(k: int, n: int) -> float:
    """Probability that ``k`` flows hashed onto ``n`` links all land on distinct links.

    ``n! / ((n - k)! * n**k)`` (the birthday problem); 0 when ``k > n``.
    """
    if k < 0 or n < 1:
        raise ValueError(f"need k >= 0 and n >= 1, got k={k}, n={n}")
    if k > n:
        return 0.0
    return math.exp(sum(math.log((n - i) / n) for i in range(k)))


def expected_used_links(m: int, n: int) -> float:
    """Expected number of links carrying at least one of ``m`` flows: n (1 - (1 - 1/n)^m)."""
    return n * (1.0 - (1.0 - 1.0 / n) ** m)


def _poisson_pmf(lam: float, upto: int) -> np.ndarray:
    j = np.arange(upto + 1)
    logp = -lam + j * math.log(lam) - np.array([math.lgamma(x + 1) for x in j]) if lam > 0 else None
    if logp is None:
        out = np.zeros(upto + 1)
        out[0] = 1.0
        return out
    return np.exp(logp)


def _conv_power(p: np.ndarray, n: int, upto: int) -> np.ndarray:
    """``p`` convolved with itself ``n`` times, truncated to degree ``upto``."""
    result = np.zeros(upto + 1)
    result[0] = 1.0
    base = p[: upto + 1]
    while n:
        if n & 1:
            result = np.convolve(result, base)[: upto + 1]
        n >>= 1
        if n:
            base = np.convolve(base, base)[: upto + 1]
    return result


def p_max_at_most(m: int, n: int, t: int) -> float:
    """Probability that no link carries more than ``t`` of ``m`` uniformly hashed flows."""
    if m < 0 or n < 1:
        raise ValueError(f"need m >= 0 and n >= 1, got m={m}, n={n}")
    if t * n < m:
        return 0.0
    if t >= m:
        return 1.0
    lam = m / n
    trunc = _poisson_pmf(lam, m)
    trunc[t + 1 :] = 0.0
    joint = _conv_power(trunc, n, m)[m]
    total = math.exp(-m + m * math.log(m) - math.lgamma(m + 1))  # Poisson(m) pmf at m
    return float(min(1.0, joint / total))


def max_load_cdf(m: int, n: int) -> dict[int, float]:
    """``{t: P(max <= t)}`` for every ``t`` from the first nonzero to the first ~1 value."""
    out: dict[int, float] = {}
    t = max(0, math.ceil(m / n))
    while t <= m:
        p = p_max_at_most(m, n, t)
        out[t] = p
        if p >= 1.0 - 1e-15:
            break
        t += 1
    return out


def expected_max_load(m: int, n: int, groups: int = 1) -> float:
    """Expected largest link load (flows) over ``groups`` independent groups of ``n`` links.

    Each group receives ``m`` flows; the groups' maxima are independent, so
    ``P(overall max <= t) = P(max <= t)^groups``.
    """
    if m == 0:
        return 0.0
    cdf = max_load_cdf(m, n)
    first = min(cdf)
    expect = float(first)  # P(max >= t) = 1 for t <= first
    for t in sorted(cdf):
        expect += 1.0 - cdf[t] ** groups
    return expect


def expected_max_load_groups(flows_per_group: dict[int, int], n: int) -> float:
    """Expected largest link load when ``flows_per_group[m]`` groups of ``n`` links get ``m`` flows each."""
    active = {m: g for m, g in flows_per_group.items() if m > 0 and g > 0}
    if not active:
        return 0.0
    cdfs = {m: max_load_cdf(m, n) for m in active}
    lo = min(min(c) for c in cdfs.values())
    hi = max(max(c) for c in cdfs.values())
    expect = float(lo)
    for t in range(lo, hi + 1):
        p_all = 1.0
        for m, g in active.items():
            c = cdfs[m]
            p = 0.0 if t < min(c) else c.get(t, 1.0)
            p_all *= p**g
        expect += 1.0 - p_all
    return expect


def raab_steger_max(m: int, n: int) -> float:
    """Heavy-load asymptote of the max load: m/n + sqrt(2 (m/n) ln n) (Raab & Steger 1998)."""
    lam = m / n
    return lam + math.sqrt(2.0 * lam * math.log(n))
