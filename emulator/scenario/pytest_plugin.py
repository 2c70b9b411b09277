"""pytest plugin (auto-loaded via the ``pytest11`` entry point): the ``fabemu_run`` fixture.

    def test_eecmp_spreads(fabemu_run):
        r = fabemu_run("scenarios/fat_flow_collision.yaml", lb="eecmp", qps=16)
        assert r.max_uplink_imbalance < 1.2

Keyword overrides accept the short aliases (lb, qps, hash, pfc, ecn, kind, algorithm,
placement) or any top-level scenario key; dotted keys go in the ``overrides`` mapping.
Runs use the virtual runtime unless ``runtime=`` says otherwise, and write their results
under pytest's temporary directory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from emulator.scenario.load import ALIASES
from emulator.scenario.runner import RunOutcome, run_scenario


@pytest.fixture
def fabemu_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., RunOutcome]:
    """Run a scenario and return its outcome (metrics readable as attributes)."""

    def run(
        scenario: str | Path,
        overrides: Mapping[str, Any] | None = None,
        *,
        runtime: str | None = "virtual",
        target: str | None = None,
        report: bool = False,
        **kwargs: Any,
    ) -> RunOutcome:
        merged = dict(overrides or {})
        merged.update({ALIASES.get(k, k): v for k, v in kwargs.items()})
        out = tmp_path_factory.mktemp(Path(scenario).stem)
        return run_scenario(
            scenario, merged, runtime=runtime, target=target, out=out, report=report
        )

    return run
