"""roce_vs_ib.yaml: a fat-flow collision under static ftree routing that adaptive routing spreads."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.cmd_compare import _overrides
from emulator.errors import UserError
from emulator.scenario.load import ScenarioError, load_scenario
from emulator.scenario.runner import RunOutcome, run_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "roce_vs_ib.yaml"
SMALL = {"workload.size_bytes": 262_144}


def _variant(name: str) -> dict[str, object]:
    return _overrides({"variant": name}, load_scenario(SCENARIO).variants)


def _uplink_bytes(outcome: RunOutcome, leaf: str = "rtsw0") -> list[int]:
    return [
        link.bytes
        for link in outcome.result.links
        if link.kind == "fabric" and link.up and link.src == leaf
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunOutcome]:
    out = {}
    for name in ("ib_static", "ib_adaptive"):
        out[name] = run_scenario(SCENARIO, SMALL | _variant(name), runtime="virtual",
                                 out=tmp_path_factory.mktemp(name), report=False)  # fmt: skip
    return out


@pytest.mark.ib
def test_both_complete_losslessly(runs: dict[str, RunOutcome]) -> None:
    for o in runs.values():
        assert o.error is None and o.completed == 1
        assert o.drops == 0 and o.retransmissions == 0 and o.pause_frames == 0
        assert o.result.meta.lb.startswith("ib-ftree")


@pytest.mark.ib
def test_static_ftree_collides(runs: dict[str, RunOutcome]) -> None:
    """h4, h8 and h12 share rtsw0's first uplink in OpenSM's ftree LFT: 3 flows, 2 idle."""
    static = runs["ib_static"]
    assert static.max_uplink_imbalance >= 2.5
    assert static.idle_uplinks == 2
    sizes = sorted(_uplink_bytes(static), reverse=True)
    assert sizes[0] > 2.5 * sizes[1]


@pytest.mark.ib
def test_adaptive_routing_spreads_and_finishes_sooner(runs: dict[str, RunOutcome]) -> None:
    static, adaptive = runs["ib_static"], runs["ib_adaptive"]
    assert adaptive.idle_uplinks == 0
    assert adaptive.max_uplink_imbalance < 1.5
    assert adaptive.fct_p99_ms < 0.6 * static.fct_p99_ms


def test_variants_expand_to_overrides() -> None:
    assert _variant("ib_adaptive") == {
        "fabric": "ib", "ib.routing": "ftree", "ib.adaptive_routing": True,
    }  # fmt: skip
    with pytest.raises(UserError, match="no variant 'nope'"):
        _variant("nope")


@pytest.mark.parametrize(
    ("overrides", "msg"),
    [
        ({"fabric": "ib", "ib.lmc": 1}, "ib: OpenSM's ftree engine does not support lmc"),
        ({"fabric": "ib", "runtime": "mininet"}, "virtual runtime only"),
        ({"fabric": "ib", "ib.routing": "lash"}, "ib.routing"),
        ({"fabric": "ib", "ib.vl_buffer_bytes": 64}, "ib.vl_buffer_bytes"),
    ],
)
def test_bad_ib_settings_name_the_key(overrides: dict[str, object], msg: str) -> None:
    with pytest.raises(ScenarioError, match=msg):
        load_scenario(SCENARIO, overrides)
