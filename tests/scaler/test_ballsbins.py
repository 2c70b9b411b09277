"""Closed forms for flows hashed onto links, against brute force."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.scaler.model import ballsbins as bb


def brute_max_distribution(m: int, n: int) -> dict[int, Fraction]:
    """Exact P(max = t) by enumerating all n^m placements."""
    out: dict[int, Fraction] = {}
    for placement in itertools.product(range(n), repeat=m):
        t = max(placement.count(b) for b in range(n)) if m else 0
        out[t] = out.get(t, Fraction(0)) + Fraction(1, n**m)
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(1, 40))
def test_no_collision_is_the_birthday_formula(k: int, n: int) -> None:
    expected = Fraction(math.perm(n, k), n**k) if k <= n else Fraction(0)
    assert bb.p_no_collision(k, n) == pytest.approx(float(expected), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("m", "n"), [(1, 3), (3, 3), (4, 2), (5, 4), (6, 3), (7, 2)])
def test_max_load_cdf_matches_enumeration(m: int, n: int) -> None:
    dist = brute_max_distribution(m, n)
    for t in range(m + 1):
        exact = sum((p for v, p in dist.items() if v <= t), Fraction(0))
        assert bb.p_max_at_most(m, n, t) == pytest.approx(float(exact), abs=1e-12)
    mean = sum(v * p for v, p in dist.items())
    assert bb.expected_max_load(m, n) == pytest.approx(float(mean), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 32), st.integers(1, 50))
def test_expected_max_is_bounded_and_grows_with_groups(m: int, n: int, groups: int) -> None:
    one = bb.expected_max_load(m, n)
    many = bb.expected_max_load(m, n, groups)
    assert math.ceil(m / n) - 1e-9 <= one <= m + 1e-9
    assert one - 1e-9 <= many <= m + 1e-9
    assert bb.expected_max_load_groups({m: groups}, n) == pytest.approx(many, rel=1e-9)


def test_thousand_flows_on_sixteen_links() -> None:
    ratio = bb.expected_max_load(1000, 16) / (1000 / 16)
    assert ratio == pytest.approx(1.2296, abs=5e-4)  # "about 1.2"
    assert bb.raab_steger_max(1000, 16) / 62.5 > ratio  # the asymptote overestimates here


def test_used_links() -> None:
    assert bb.expected_used_links(1, 16) == pytest.approx(1.0)
    assert bb.expected_used_links(16, 16) == pytest.approx(16 * (1 - (15 / 16) ** 16))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        bb.p_no_collision(-1, 4)
    with pytest.raises(ValueError):
        bb.p_max_at_most(3, 0, 1)
