"""Every shipped scenario gives the same result.json with and without the decision cache.

Virtual time is deterministic, so the cache (emulator/target/flowcache.py) must change
nothing but speed. Durations are shortened to keep the test quick; the lb variants cover
the program's register-heavy paths (flowlet: time stamps and registers; pinning).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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


def _result(path: Path, overrides: dict[str, Any], out: Path, cache: str, mp: Any) -> Any:
    mp.setenv("FABEMU_FLOWCACHE", cache)
    outcome = run_scenario(path, {"duration_ms": 150, **overrides}, out=out, report=False)
    assert outcome.error is None, outcome.error
    data = json.loads((out / "result.json").read_text())
    for key in VOLATILE:
        data["meta"].pop(key, None)
    return data


@pytest.mark.parametrize(("path", "overrides"), CASES, ids=[f"{p.stem}{o or ''}" for p, o in CASES])
def test_cache_changes_nothing(
    path: Path, overrides: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """result.json with the cache equals result.json without it, and frames did move."""
    off = _result(path, overrides, tmp_path / "off", "0", monkeypatch)
    on = _result(path, overrides, tmp_path / "on", "1", monkeypatch)
    assert off["totals"] == on["totals"]
    assert off == on
    assert any(float(v) > 0 for v in off["totals"].values() if isinstance(v, int | float))
