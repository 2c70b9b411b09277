"""Every shipped scenario gives the same result.json with and without each speed-up.

Virtual time is deterministic, so a speed-up (:mod:`emulator.speedups`: the decision
cache, specialised table nodes, the lazy sampler, ...) must change nothing but speed: each
one alone is compared with every one off (``FABEMU_FAST=0``). Durations are shortened to
keep the test quick; the lb variants cover the program's register-heavy paths (flowlet:
time stamps and registers; pinning).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator import speedups
from emulator.scenario.runner import run_scenario

ROOT = Path(__file__).resolve().parents[2]
# every runnable scenario (scenarios/scale/ holds scaler job descriptions, not runs)
SCENARIOS = sorted(
    p for p in (ROOT / "scenarios").glob("**/*.yaml") if "scale" not in p.parent.name
)
CASES = [(p, {}) for p in SCENARIOS] + [
    (ROOT / "scenarios" / "fat_flow_collision.yaml", {"switch.lb": "flowlet"}),
    (
        ROOT / "scenarios" / "fat_flow_collision.yaml",
        {"switch.lb": "pinning", "workload.num_qps": 16},
    ),
]
VOLATILE = ("wall_s", "started_at")
_BASELINES: dict[str, Any] = {}


def _result(path: Path, overrides: dict[str, Any], out: Path, env: dict[str, str], mp: Any) -> Any:
    for key, value in env.items():
        mp.setenv(key, value)
    outcome = run_scenario(path, {"duration_ms": 150, **overrides}, out=out, report=False)
    assert outcome.error is None, outcome.error
    data = json.loads((out / "result.json").read_text())
    for key in VOLATILE:
        data["meta"].pop(key, None)
    return data


def _baseline(path: Path, overrides: dict[str, Any], out: Path, mp: pytest.MonkeyPatch) -> Any:
    """result.json with every speed-up off (computed once per case)."""
    key = f"{path}{sorted(overrides.items())}"
    if key not in _BASELINES:
        with mp.context() as m:
            _BASELINES[key] = _result(path, overrides, out, speedups.environment(False), m)
    return _BASELINES[key]


@pytest.mark.parametrize("speedup", sorted(speedups.DEFAULTS))
@pytest.mark.parametrize(("path", "overrides"), CASES, ids=[f"{p.stem}{o or ''}" for p, o in CASES])
def test_speedup_changes_nothing(
    path: Path,
    overrides: dict[str, Any],
    speedup: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """result.json with one speed-up on equals result.json with none, and frames did move."""
    off = _baseline(path, overrides, tmp_path / "off", monkeypatch)
    env = {**speedups.environment(False), f"FABEMU_{speedup}": "1"}
    on = _result(path, overrides, tmp_path / "on", env, monkeypatch)
    assert off["totals"] == on["totals"]
    assert off == on
    assert any(float(v) > 0 for v in off["totals"].values() if isinstance(v, int | float))


def test_switches() -> None:
    """FABEMU_FAST=0 turns every speed-up off; a speed-up's own variable wins over it."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv(speedups.ALL_OFF, "0")
        assert not any(speedups.enabled(n) for n in speedups.DEFAULTS)
        mp.setenv("FABEMU_FASTMATCH", "1")
        assert speedups.enabled("FASTMATCH")
        mp.delenv(speedups.ALL_OFF)
        mp.delenv("FABEMU_FASTMATCH")
        assert [speedups.enabled(n) for n in speedups.DEFAULTS] == list(speedups.DEFAULTS.values())
    finally:
        mp.undo()
