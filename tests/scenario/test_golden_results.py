"""Every shipped scenario's result.json against a golden copy (``--update-golden`` rewrites).

Virtual time is deterministic, so a refactoring that changes a number here changed
behaviour. Durations are shortened to keep the test quick; the extra lb variants cover the
program's register-heavy paths. Wall-clock fields are dropped before comparing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from emulator.scenario.metrics import METRIC_NAMES
from emulator.scenario.runner import run_scenario

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
# every runnable scenario (scenarios/scale/ holds scaler job descriptions, not runs)
SCENARIOS = sorted(
    p for p in (ROOT / "scenarios").glob("**/*.yaml") if "scale" not in p.parent.name
)
CASES: list[tuple[str, Path, dict[str, Any]]] = [(p.stem, p, {}) for p in SCENARIOS] + [
    (
        "fat_flow_collision-flowlet",
        ROOT / "scenarios/fat_flow_collision.yaml",
        {"switch.lb": "flowlet"},
    ),
    (
        "fat_flow_collision-pinning-16qp",
        ROOT / "scenarios/fat_flow_collision.yaml",
        {"switch.lb": "pinning", "workload.num_qps": 16},
    ),
]
VOLATILE = ("wall_s", "started_at", "finished_at", "scenario_file")
LONG = 8  # number lists longer than this are kept as length, sum and digest


def _condensed(value: Any) -> Any:
    """``value`` with long number series replaced by a short digest (keeps goldens small)."""
    if isinstance(value, dict):
        return {k: _condensed(v) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > LONG and all(isinstance(v, int | float) for v in value):
            digest = hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]
            return f"series n={len(value)} sum={sum(value)!r} sha256={digest}"
        return [_condensed(v) for v in value]
    return value


def _normalised(out: Path) -> str:
    data = json.loads((out / "result.json").read_text())
    for key in VOLATILE:
        data.get("meta", {}).pop(key, None)
    return json.dumps(_condensed(data), indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize(("name", "path", "overrides"), CASES, ids=[c[0] for c in CASES])
def test_result_matches_golden(
    name: str, path: Path, overrides: dict[str, Any], tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """result.json (150 virtual ms, seed of the scenario) equals the golden copy."""
    outcome = run_scenario(path, {"duration_ms": 150, **overrides}, out=tmp_path, report=False)
    assert outcome.error is None, outcome.error
    assert set(outcome.metrics) <= METRIC_NAMES  # so ``expect:`` may name each of them
    text = _normalised(tmp_path)
    golden = GOLDEN / f"{name}.json"
    if request.config.getoption("--update-golden"):
        golden.write_text(text)
        return
    assert golden.exists(), f"missing {golden}: run pytest with --update-golden"
    assert text == golden.read_text(), f"{golden} differs (intended? rerun with --update-golden)"
