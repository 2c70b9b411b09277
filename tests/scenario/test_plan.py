"""build_plan: a scenario becomes one RunPlan (workload hosts placed once, RNIC config
built once, typed switch operations, the live controller)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.control import FabricController
from emulator.errors import UserError
from emulator.plan.build import build_plan, rnic_config
from emulator.plan.workload import workload_mapping
from emulator.scenario.schema import Scenario
from emulator.target.ops import CreateGroup, SetQueueRate, TableSetDefault
from emulator.topology import load_clos, resolve
from emulator.traffic.workloads import workload_from_dict
from emulator.vocab import LbMode

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_FILE = ROOT / "scenarios" / "fat_flow_collision.yaml"
TOPO = resolve(load_clos("two_rack_4spine"))  # racks: h0..h3 on rtsw0, h4..h7 on rtsw1


def _sc(workload: dict[str, Any], **more: Any) -> Scenario:
    return Scenario.model_validate(
        {
            "name": "t",
            "topology": str(ROOT / "topologies" / "two_rack_4spine.yaml"),
            "workload": workload,
            **more,
        }
    )


def _hosts(workload: dict[str, Any], **more: Any) -> tuple[str, ...]:
    return workload_from_dict(workload_mapping(_sc(workload, **more), TOPO)).hosts


def test_placement_picks_hosts_from_the_racks() -> None:
    assert _hosts({"kind": "allreduce", "ranks": 4}) == ("h0", "h4", "h1", "h5")  # spread
    packed = {"kind": "allreduce", "ranks": 4, "placement": "packed"}
    assert _hosts(packed) == ("h0", "h1", "h2", "h3")
    hd = {"kind": "allreduce", "ranks": 4, "algorithm": "halving_doubling"}
    assert workload_from_dict(workload_mapping(_sc(hd), TOPO)).algorithm == "halving_doubling"
    a2a = {"kind": "alltoall", "ranks": 8, "iterations": 3, "num_qps": 16}
    w = workload_from_dict(workload_mapping(_sc(a2a), TOPO))
    assert len(w.hosts) == 8 and w.iterations == 3 and w.num_qps == 16
    assert _hosts({"kind": "incast", "senders": ["h0", "h1"], "receiver": "h5"}) == (
        "h5",
        "h0",
        "h1",
    )
    pairs = {"kind": "fat_flows", "pairs": [["h0", "h4"], ["h1", "h5"]]}
    assert workload_from_dict(workload_mapping(_sc(pairs), TOPO)).rank_pairs() == [(0, 1), (2, 3)]


def test_random_placement_is_drawn_from_the_seed() -> None:
    w = {"kind": "fat_flows", "pairs": [["h0", "h4"], ["h1", "h5"], ["h2", "h6"], ["h3", "h7"]],
         "placement": "random"}  # fmt: skip
    a = workload_mapping(_sc(w, seed=1), TOPO)["pairs"]
    assert a == workload_mapping(_sc(w, seed=1), TOPO)["pairs"]
    assert sorted(d for _, d in a) == ["h4", "h5", "h6", "h7"]
    assert any(workload_mapping(_sc(w, seed=s), TOPO)["pairs"] != a for s in range(2, 6))


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        ({"kind": "allreduce", "hosts": ["h0", "h9"]}, "not in topology"),
        ({"kind": "fat_flows", "pairs": [["h0", "x"]]}, "not in topology"),
        ({"kind": "incast", "senders": ["h0"], "receiver": "q"}, "not in topology"),
        ({"kind": "allreduce", "ranks": 6, "algorithm": "halving_doubling"}, "power-of-two"),
        ({"kind": "allreduce", "ranks": 9}, "does not fit"),
    ],
)
def test_bad_workloads_name_the_file_and_key(workload: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message) as err:
        build_plan(_sc(workload), ROOT / "scenarios" / "x.yaml")
    assert "x.yaml: workload" in str(err.value)


def test_rnic_config_is_the_scenario_section_at_the_host_rate() -> None:
    sc = _sc({"kind": "allreduce", "ranks": 2}, rnic={"chunk_bytes": 4096, "mtu": 2048,
                                                      "admission": False})  # fmt: skip
    cfg = rnic_config(sc, TOPO)
    assert (cfg.chunk_bytes, cfg.mtu, cfg.admission) == (4096, 2048, False)
    assert cfg.link_bps == min(h.port.rate_bps for h in TOPO.hosts)


def test_a_plan_holds_everything_once() -> None:
    from emulator.scenario.load import load_scenario

    sc = load_scenario(SCENARIO_FILE, {"switch.lb": "pinning", "switch.queue_rate_pps": 500})
    plan = build_plan(sc, SCENARIO_FILE)
    assert plan.workload is not None
    assert plan.workload.hosts == frozenset(workload_from_dict(plan.workload.mapping).hosts)
    assert set(plan.programs) == set(plan.switch_ops) == {s.name for s in plan.topo.switches}
    ops = plan.switch_ops["rtsw0"]
    [config] = [op for op in ops if isinstance(op, TableSetDefault)]
    assert config.params[1] == LbMode.PINNING.code  # switch.lb: pinning -> the table entry
    assert ops[-1] == SetQueueRate(500)
    assert any(isinstance(op, CreateGroup) for op in ops)
    assert plan.controller is not None and plan.controller.detection_delay_ns == 0
    with pytest.raises(AttributeError):
        plan.target = "bmv2"  # type: ignore[misc]


def test_detection_delay_and_repair_come_from_switch_control() -> None:
    from emulator.scenario.load import load_scenario

    sc = load_scenario(SCENARIO_FILE, {"switch.control.detection_delay_us": 2.5})
    plan = build_plan(sc, SCENARIO_FILE)
    assert plan.controller is not None and plan.controller.detection_delay_ns == 2500
    off = load_scenario(SCENARIO_FILE, {"switch.control.repair": False})
    assert build_plan(off, SCENARIO_FILE).controller is None


def test_incompatible_runtime_is_refused_once_for_all_callers() -> None:
    sc = _sc({"kind": "allreduce", "ranks": 2})
    with pytest.raises(UserError, match="cannot run in the 'virtual' runtime"):
        build_plan(sc, "x.yaml", "virtual", "bmv2")
    with pytest.raises(ValueError, match="cannot run in the 'virtual' runtime"):
        _sc({"kind": "allreduce", "ranks": 2}, target="bmv2", runtime="virtual")


def test_bad_control_settings_name_the_key() -> None:
    from emulator.scenario.load import load_scenario

    with pytest.raises(UserError, match=r"switch\.control\.detection_delay_us"):
        load_scenario(SCENARIO_FILE, {"switch.control.detection_delay_us": -1})
    with pytest.raises(UserError, match=r"switch\.control\.hold_down"):
        load_scenario(SCENARIO_FILE, {"switch.control.hold_down": 1})


def test_pfc_thresholds_have_one_source_of_truth() -> None:
    """Left out of a scenario, the thresholds a run uses are the control plane's derivation,
    the same as a bare FabricController's (no second default anywhere)."""
    from emulator.control import PfcConfig
    from emulator.scenario.schema import PfcSettings

    assert (PfcSettings().xoff_pkts, PfcSettings().xon_pkts) == (None, None)
    assert (PfcConfig().xoff, PfcConfig().xon) == (None, None)
    sc = _sc({"kind": "allreduce", "ranks": 2}, switch={"lb": "eecmp"})
    plan = build_plan(sc, SCENARIO_FILE)
    assert plan.controller is not None
    bare = FabricController(TOPO).config.pfc
    used = plan.controller.fabric.config.pfc
    assert (used.xoff, used.xon, used.quanta) == (bare.xoff, bare.xon, bare.quanta)
    assert used.xoff is not None and used.xon is not None and used.xon < used.xoff
