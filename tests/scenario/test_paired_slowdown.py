"""The per-seed slowdown of a fault variant against its ``_nofault`` twin."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from emulator.scenario.paired import paired_slowdowns, twin_label


def _run(seed: int, **metrics: float) -> tuple[None, Any]:
    meta = SimpleNamespace(seed=seed)
    return None, SimpleNamespace(result=SimpleNamespace(meta=meta), metrics=metrics)


def test_twin_label() -> None:
    assert twin_label("variant=pinning") == "variant=pinning_nofault"
    assert twin_label("qps=1,variant=x,lb=y") == "qps=1,variant=x_nofault,lb=y"
    assert twin_label("variant=pinning_nofault") is None
    assert twin_label("lb=ecmp") is None


def test_slowdown_is_paired_per_seed() -> None:
    # seed 2 is slow with and without the fault: paired, every ratio is 1.5
    groups = {
        "variant=a": [_run(1, step_ms=15.0), _run(2, step_ms=30.0), _run(3, step_ms=18.0)],
        "variant=a_nofault": [_run(1, step_ms=10.0), _run(2, step_ms=20.0), _run(3, step_ms=12.0)],
        "variant=b": [_run(1, collective_ms=4.0)],  # twin missing: no slowdown
    }
    out = paired_slowdowns(groups)
    assert set(out) == {"variant=a"}
    assert out["variant=a"].n == 3 and out["variant=a"].median == pytest.approx(1.5)
    # collective_ms when there is no training step; seeds only one side ran are left out
    groups = {
        "variant=c": [_run(1, collective_ms=8.0), _run(4, collective_ms=9.0)],
        "variant=c_nofault": [_run(1, collective_ms=4.0)],
    }
    assert paired_slowdowns(groups)["variant=c"].median == pytest.approx(2.0)
