"""Max-min fair rates against a scalar reference, and against the bottleneck share."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.scaler.model.collectives import plan_collective
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.maxmin import connection_rates, max_min_rates
from emulator.scaler.model.routing import link_loads


def reference(paths: list[list[int]], caps: list[float]) -> list[float]:
    """Textbook progressive filling, one flow at a time (exact for small inputs)."""
    rates = [0.0] * len(paths)
    active = {i for i, p in enumerate(paths) if p}
    residual = list(caps)
    while active:
        users = {link: [i for i in active if link in paths[i]] for link in range(len(caps))}
        inc = min(residual[link] / len(u) for link, u in users.items() if u)
        for i in active:
            rates[i] += inc
        for link, u in users.items():
            residual[link] -= inc * len(u)
        full = {link for link, u in users.items() if u and residual[link] <= 1e-9 * caps[link]}
        active = {i for i in active if not full & set(paths[i])}
    return rates


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda links: st.tuples(
            st.lists(st.floats(1.0, 10.0), min_size=links, max_size=links),
            st.lists(
                st.lists(st.integers(0, links - 1), min_size=1, max_size=3, unique=True),
                min_size=1,
                max_size=8,
            ),
        )
    )
)
def test_matches_scalar_progressive_filling(case: tuple[list[float], list[list[int]]]) -> None:
    caps, flows = case
    width = max(len(f) for f in flows)
    paths = np.array([f + [-1] * (width - len(f)) for f in flows])
    got = max_min_rates(paths, np.array(caps))
    assert got == pytest.approx(reference(flows, caps), rel=1e-9)
    for link, cap in enumerate(caps):  # feasibility
        assert sum(r for r, f in zip(got, flows) if link in f) <= cap * (1 + 1e-9)


@pytest.mark.parametrize("mode", ["ecmp", "pinning"])
def test_slowest_connection_gets_the_bottleneck_share(mode: str) -> None:
    f = meta_fabric(3072)
    ph = plan_collective(f, "ring", 2**30, "spread", seed=2).phases[0]
    rates = connection_rates(f, mode, ph.src, ph.dst, 1, ph.slot, seed=2)
    b = link_loads(f, mode, ph.src, ph.dst, seed=2, slot=ph.slot).slowdown()
    assert rates.min() == pytest.approx(f.nic_bps / b, rel=1e-9)
    assert rates.max() <= f.nic_bps * (1 + 1e-9)
