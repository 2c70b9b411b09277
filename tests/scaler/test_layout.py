"""Training-step communication under TP8 / PP / DP."""

from __future__ import annotations

import pytest

from emulator.errors import UserError
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.layout import StepLayout, step_comm_time
from emulator.scaler.model.timing import ModelParams


def test_tp_term_is_the_nvlink_ring_formula() -> None:
    f = meta_fabric(3072)
    lay = StepLayout(pp=16, micro_batches=4)
    p = ModelParams()
    out = step_comm_time(f, lay, "pinning", params=p)
    act = lay.activation_bytes
    per_ar = 2 * 7 * (p.nvlink_alpha_s + 8 * act / 8 / (f.nvlink_bps * p.nvlink_efficiency))
    assert out["tp_s"] == pytest.approx(4 * 4 * (126 / 16) * per_ar)
    assert out["total_s"] == pytest.approx(out["tp_s"] + out["pp_s"] + out["dp_s"])
    assert out["pp_slowdown"] == pytest.approx(1.0)  # PP inside a zone, pinned: no collisions


def test_adaptive_ib_no_worse_than_roce_ecmp_at_24k() -> None:
    roce = step_comm_time(meta_fabric(24_576), StepLayout(), "ecmp")
    ib = step_comm_time(meta_fabric(24_576, "ib"), StepLayout(), "ib_adaptive")
    assert ib["total_s"] <= roce["total_s"]


def test_bad_layouts() -> None:
    with pytest.raises(UserError, match="tp=4"):
        step_comm_time(meta_fabric(256), StepLayout(tp=4), "ecmp")
    with pytest.raises(UserError, match="pp=7"):
        step_comm_time(meta_fabric(256), StepLayout(pp=7), "ecmp")
