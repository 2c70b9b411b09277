"""Scenario files: validation errors name the file, the key path and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from emulator.scenario.expect import evaluate
from emulator.scenario.load import ScenarioError, load_scenario, parse_set
from emulator.scenario.schema import Bound

GOOD = {
    "name": "t",
    "topology": "topo.yaml",
    "switch": {"program": "prog.p4"},
    "workload": {"kind": "fat_flows", "pairs": [["h0", "h2"]]},
}


def _write(tmp_path: Path, data: object, name: str = "s.yaml") -> Path:
    (tmp_path / "topo.yaml").write_text("racks: 2\n")
    (tmp_path / "prog.p4").write_text("// p4\n")
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def _error(tmp_path: Path, data: object) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(_write(tmp_path, data))
    return str(info.value)


def test_good_scenario_loads(tmp_path: Path) -> None:
    sc = load_scenario(_write(tmp_path, GOOD))
    assert sc.switch.lb == "ecmp" and sc.workload.pairs == [("h0", "h2")]


def test_unknown_key_named_with_path(tmp_path: Path) -> None:
    msg = _error(tmp_path, {**GOOD, "switch": {"program": "prog.p4", "lbb": "ecmp"}})
    assert msg == f"{tmp_path / 's.yaml'}: switch.lbb: unknown key"


def test_wrong_type_says_what_was_expected(tmp_path: Path) -> None:
    bad = {**GOOD, "workload": {**GOOD["workload"], "num_qps": "many"}}
    msg = _error(tmp_path, bad)
    assert "s.yaml: workload.num_qps:" in msg
    assert "valid integer" in msg and "'many'" in msg


def test_enum_value(tmp_path: Path) -> None:
    msg = _error(tmp_path, {**GOOD, "switch": {"program": "prog.p4", "lb": "random"}})
    assert "switch.lb:" in msg and "'ecmp'" in msg and "'random'" in msg


def test_contradiction_bmv2_in_virtual_time(tmp_path: Path) -> None:
    msg = _error(tmp_path, {**GOOD, "target": "bmv2", "runtime": "virtual"})
    assert "target 'bmv2' cannot run in the 'virtual' runtime" in msg


def test_missing_file(tmp_path: Path) -> None:
    msg = _error(tmp_path, {**GOOD, "topology": "nope.yaml"})
    assert msg.endswith("topology: file not found: nope.yaml")


def test_missing_required_key(tmp_path: Path) -> None:
    data = {k: v for k, v in GOOD.items() if k != "workload"}
    assert _error(tmp_path, data).endswith("workload: required key is missing")


def test_list_index_in_key_path(tmp_path: Path) -> None:
    bad = {**GOOD, "workload": {"kind": "fat_flows", "pairs": [["h0", "h1"], ["h2"]]}}
    assert "workload.pairs[1]" in _error(tmp_path, bad)


def test_pfc_thresholds_consistent(tmp_path: Path) -> None:
    bad = {**GOOD, "switch": {"program": "prog.p4", "pfc": {"xoff_pkts": 10, "xon_pkts": 20}}}
    assert "switch.pfc: xon_pkts (20) must be below xoff_pkts (10)" in _error(tmp_path, bad)


def test_bad_yaml_has_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml:\d+:\d+: not valid YAML"):
        load_scenario(path)


def test_overrides_and_aliases(tmp_path: Path) -> None:
    sc = load_scenario(_write(tmp_path, GOOD), parse_set(["lb=eecmp", "qps=16", "seed=7"]))
    assert (sc.switch.lb, sc.workload.num_qps, sc.seed) == ("eecmp", 16, 7)
    with pytest.raises(ScenarioError, match="key=value"):
        parse_set(["lb"])


def test_expectations() -> None:
    verdicts = evaluate(
        {"drops": Bound(eq=0), "busbw": Bound(min=10), "imb": Bound(max=1.2), "gone": Bound(min=1)},
        {"drops": 0, "busbw": 12.5, "imb": 1.5},
    )
    assert [v.met for v in verdicts] == [True, True, False, False]
    assert verdicts[3].describe() == "gone = missing (>= 1): NOT met"
