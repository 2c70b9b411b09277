"""Mininet's PFC lag headroom: deeper queues, the same thresholds as virtual time.

On Mininet a switch process that was not scheduled finds frames its neighbours sent before
it could pause them; ``with_lag_headroom`` sizes the queues for that (pfc_headroom.lag_depth).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.control import FabricConfig, FabricController, PfcConfig, pfc_headroom
from emulator.control.controller import with_lag_headroom, with_pfc_thresholds
from emulator.plan.build import build_plan
from emulator.scenario.load import load_scenario
from emulator.target.ops import SetQueueDepth
from emulator.topology import load_clos, resolve

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision.yaml"


@pytest.fixture(scope="module")
def four() -> object:
    return resolve(load_clos("two_rack_4spine"))


def test_lag_depth_holds_every_other_port_for_the_lag(four: object) -> None:
    base = with_pfc_thresholds(four, FabricConfig())
    xoff = base.pfc.xoff
    assert (xoff, base.pfc.xon) == (36, 18)
    lag = 100_000_000  # 100 ms at 10 Mb/s: 125,000 B = 112 frames of 1,122 B on the wire
    per_port = pfc_headroom.headroom_pkts(10e6, 1000, 1024, lag)
    assert 113 <= per_port <= 116
    # a leaf of two_rack_4spine has 8 ports: 7 others may deliver their headroom at once
    assert pfc_headroom.lag_depth(four, 1024, xoff, lag) == xoff + 7 * per_port
    assert pfc_headroom.lag_depth(four, 1024, xoff, 0) == 64  # no lag: the target's depth


def test_thresholds_stay_those_of_virtual_time(four: object) -> None:
    cfg = with_lag_headroom(four, FabricConfig(), pfc_headroom.PROCESS_LAG_NS)
    assert (cfg.pfc.xoff, cfg.pfc.xon) == (36, 18)
    assert cfg.queue_depth == pfc_headroom.lag_depth(four, 1024, 36, pfc_headroom.PROCESS_LAG_NS)
    ops = FabricController(four, cfg).switch_ops("ctsw0")
    assert SetQueueDepth(cfg.queue_depth) in ops


@pytest.mark.parametrize(
    "config",
    [
        FabricConfig(queue_depth=200),  # the user's depth is kept
        FabricConfig(pfc=PfcConfig(enabled=False)),  # no PFC: overflow is the experiment
    ],
)
def test_explicit_depth_or_no_pfc_is_left_alone(four: object, config: FabricConfig) -> None:
    assert with_lag_headroom(four, config, pfc_headroom.PROCESS_LAG_NS) == config


def test_only_the_mininet_plan_gets_the_lag_headroom() -> None:
    sc = load_scenario(FLAGSHIP)
    depths = {}
    for runtime in ("virtual", "mininet"):
        plan = build_plan(sc, FLAGSHIP, runtime)
        depths[runtime] = {op for op in plan.switch_ops["rtsw0"] if isinstance(op, SetQueueDepth)}
    assert depths["virtual"] == set()  # the target's default (64): results unchanged
    [mn] = depths["mininet"]
    assert mn.depth > 64
    sc2 = sc.model_copy(update={"switch": sc.switch.model_copy(update={"queue_depth_pkts": 80})})
    plan = build_plan(sc2, FLAGSHIP, "mininet")
    assert {op.depth for op in plan.switch_ops["rtsw0"] if isinstance(op, SetQueueDepth)} == {80}
