"""Alpha-beta timing: closed forms for an uncongested ring, linearity used by the fit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.scaler.model.collectives import plan_collective
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.timing import ModelParams, evaluate, features, step_time


def test_uncongested_ring_matches_alpha_beta_formula() -> None:
    f = meta_fabric(256)  # 32 hosts; pinning keeps every uplink at one flow
    p = ModelParams(alpha_s=5e-6, efficiency=0.9, nvlink_alpha_s=1e-6, nvlink_efficiency=0.8)
    m = float(2**28)
    res = evaluate(f, plan_collective(f, "ring", m), "pinning", params=p)
    h, g = f.hosts, f.gpus_per_host
    net = 2 * (h - 1) * (p.alpha_s + 8 * m / g / h / (f.nic_bps * p.efficiency))
    nv = 2 * (g - 1) * p.nvlink_alpha_s + 8 * 2 * (g - 1) / g * m / (
        f.nvlink_bps * p.nvlink_efficiency
    )
    assert res.slowdown == pytest.approx(1.0)
    assert res.time_s == pytest.approx(net + nv, rel=1e-12)
    assert res.busbw_gbps == pytest.approx(8 * m / res.time_s / 1e9 * 2 * (256 - 1) / 256)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(1.0, 30.0),
    st.floats(1.0, 1e4),
    st.floats(1.0, 1e9),
    st.floats(1e-7, 1e-4),
    st.floats(0.3, 1.0),
    st.floats(0.0, 2.0),
)
def test_time_is_linear_in_fit_parameters(
    b: float, steps: float, nbytes: float, alpha: float, eff: float, pen: float
) -> None:
    p = ModelParams(alpha_s=alpha, efficiency=eff, penalty=pen)
    theta = np.array([alpha, 1 / eff, pen / eff])
    direct = steps * step_time(p, b, nbytes, 400e9)
    assert features(b, steps, nbytes, 400e9) @ theta == pytest.approx(direct, rel=1e-9)


def test_collision_penalty_slows_only_congested_steps() -> None:
    base, pen = ModelParams(penalty=0.0), ModelParams(penalty=0.5)
    assert step_time(pen, 1.0, 1e6, 400e9) == pytest.approx(step_time(base, 1.0, 1e6, 400e9))
    assert step_time(pen, 3.0, 1e6, 400e9) > step_time(base, 3.0, 1e6, 400e9)


def test_evaluate_is_deterministic_for_a_seed() -> None:
    f = meta_fabric(3072)
    plan = plan_collective(f, "hd", 2**30, "spread", seed=4)
    a = evaluate(f, plan, "ecmp", seed=4)
    b = evaluate(f, plan_collective(f, "hd", 2**30, "spread", seed=4), "ecmp", seed=4)
    c = evaluate(f, plan, "ecmp", seed=5)
    assert a.time_s == b.time_s and a.slowdown == b.slowdown
    assert [p.slowdown for p in a.phases] != [p.slowdown for p in c.phases] or a.time_s != c.time_s
