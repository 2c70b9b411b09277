"""The flagship scenario through the ``fabemu_run`` fixture, in virtual time.

Baseline ECMP (1 QP per connection) piles two of the four fat flows onto one leaf uplink
while another idles; E-ECMP with 16 QPs per connection spreads them and finishes sooner.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.scenario.runner import RunOutcome

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "fat_flow_collision.yaml"
#: seed 2: the QPNs (so the UDP source ports) put two of the four 1-QP flows on one uplink
#: and leave one idle; tests/scenario/test_seed_distributions.py covers every seed
SMALL = {"workload.size_bytes": 262_144, "seed": 2}


def _leaf_uplink_bytes(outcome: RunOutcome, leaf: str = "rtsw0") -> dict[str, int]:
    return {
        link.name: link.bytes
        for link in outcome.result.links
        if link.kind == "fabric" and link.up and link.src == leaf
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunOutcome]:
    from emulator.scenario.runner import run_scenario

    out = {}
    for label, lb, qps in (("ecmp", "ecmp", 1), ("eecmp16", "eecmp", 16)):
        overrides = SMALL | {"switch.lb": lb, "workload.num_qps": qps}
        out[label] = run_scenario(
            SCENARIO, overrides, runtime="virtual", out=tmp_path_factory.mktemp(label), report=False
        )
    return out


def test_both_complete_losslessly(runs: dict[str, RunOutcome]) -> None:
    for outcome in runs.values():
        assert outcome.result.meta.complete, outcome.result.meta.incomplete_reason
        assert outcome.passed, [v.describe() for v in outcome.verdicts]
        assert outcome.result.totals.drops == 0
        assert outcome.result.conservation is not None and outcome.result.conservation.ok


def test_ecmp_collides(runs: dict[str, RunOutcome]) -> None:
    r = runs["ecmp"].result
    uplinks = _leaf_uplink_bytes(runs["ecmp"])
    busiest = max(uplinks.values())
    assert min(uplinks.values()) < 0.05 * busiest  # an uplink idles (control packets only)
    per_uplink: dict[str, list[float]] = {}
    for flow in r.flows:
        (first,) = [u for u in flow.uplinks if u.startswith("rtsw0:")] or [None]
        if first:
            per_uplink.setdefault(first, []).append(flow.throughput_bps)
    shared = [rates for rates in per_uplink.values() if len(rates) == 2]
    alone = [rates[0] for rates in per_uplink.values() if len(rates) == 1]
    assert shared and alone, per_uplink
    for rate in shared[0]:
        assert 0.35 < rate / max(alone) < 0.65  # about half the rate of an uncollided flow
    assert runs["ecmp"].max_uplink_imbalance > 1.8  # the same, as summary metrics
    assert runs["ecmp"].idle_uplinks >= 1


def test_eecmp_with_qp_scaling_spreads_and_is_faster(runs: dict[str, RunOutcome]) -> None:
    uplinks = _leaf_uplink_bytes(runs["eecmp16"])
    mean = sum(uplinks.values()) / len(uplinks)
    # 64 QPs hashed onto 4 uplinks: balls into bins, not a perfect split (the median over
    # seeds is in README); these bounds fail for about 2% of seeds, not for this one
    assert max(uplinks.values()) / mean < 1.6
    assert min(uplinks.values()) > 0.4 * mean
    assert runs["eecmp16"].max_uplink_imbalance < 1.6
    assert runs["eecmp16"].idle_uplinks == 0
    t_ecmp = runs["ecmp"].result.meta.end_ns
    t_eecmp = runs["eecmp16"].result.meta.end_ns
    assert t_eecmp < 0.85 * t_ecmp  # the slowest (collided) flows no longer set the pace


def test_fixture_runs_a_scenario(fabemu_run) -> None:
    r = fabemu_run(SCENARIO, SMALL, lb="eecmp", qps=2)
    assert r.result.meta.complete and r.result.meta.runtime == "virtual"
    assert r.result.meta.lb == "eecmp" and r.result.meta.num_qps == 2
    assert r.drops == 0  # a summary metric as an attribute
    with pytest.raises(AttributeError, match="no metric"):
        _ = r.no_such_metric
