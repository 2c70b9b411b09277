"""``fabemu validate`` checks everything a run uses; hostile scenario files are clean errors.

Each failure class the scenario fuzzer (benchmarks/fuzz_scenarios.py) found: hosts not in
the topology, an invalid topology file, unknown or empty metric names, min above max,
non-UTF-8 bytes, deep nesting, a bad ``--set`` value; and a run bounded by ``--wall-limit``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from emulator.cli.main import main
from emulator.measure.assemble import finished_meta
from emulator.measure.results import RunMeta
from emulator.scenario.metrics import METRIC_NAMES, summary_metrics

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "scenarios" / "pfc_incast.yaml"


def scenario(tmp_path: Path, **changes: object) -> Path:
    """pfc_incast with absolute paths and ``changes`` (dotted keys) applied."""
    doc = yaml.safe_load(BASE.read_text())
    doc["topology"] = str(ROOT / "topologies" / "ai_zone_small.yaml")
    doc["switch"]["program"] = str(ROOT / "p4" / "roce_fabric.p4")
    for dotted, value in changes.items():
        node = doc
        *parents, last = dotted.split(".")
        for k in parents:
            node = node.setdefault(k, {})
        node[last] = value
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def validate(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code = main(["validate", str(path), *extra])
    out = capsys.readouterr()
    assert code == 2 and "Traceback" not in out.err
    return out.out


def test_the_base_scenario_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(scenario(tmp_path))]) == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workload.receiver": "h999"}, "workload: workload names hosts not in topology"),
        ({"workload.senders": ["h1", ""]}, "workload: workload names hosts not in topology"),
        ({"expect": {"nosuch": {"min": 1}}}, "expect.nosuch: unknown metric 'nosuch'"),
        ({"expect": {"": {"min": 1}}}, "expect.: empty metric name"),
        ({"expect": {"drops": {"min": 3, "max": 1}}}, "expect.drops: min (3) is greater than max"),
        ({"expect": {"drops": {"eq": 5, "max": 1}}}, "expect.drops: eq (5) is outside min..max"),
        ({"expect": {"drops": {"min": float("nan")}}}, "expect.drops.min:"),
        ({"switch.program": str(ROOT / "p4" / "corpus" / "include" / "std_headers.p4")},
         "switch.program: "),
    ],
)  # fmt: skip
def test_what_a_run_would_refuse_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, object], message: str
) -> None:
    out = validate(scenario(tmp_path, **changes), capsys)
    assert out.startswith(f"INVALID {tmp_path / 's.yaml'}: ") and message in out


@pytest.mark.parametrize("racks", [2**63, -1, "2^63", None])
def test_an_invalid_topology_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], racks: object
) -> None:
    topo = yaml.safe_load((ROOT / "topologies" / "ai_zone_small.yaml").read_text())
    topo["racks"] = racks
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(topo))
    out = validate(scenario(tmp_path, topology=str(tmp_path / "t.yaml")), capsys)
    assert f"s.yaml: topology: {tmp_path / 't.yaml'}" in out


def test_non_utf8_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"name: x\ndescription: caf\xe9\n")
    assert f"INVALID {path}:2:17: byte 0xe9 is not UTF-8" in validate(path, capsys)


@pytest.mark.parametrize("deep", ["[" * 5000 + "]" * 5000, "{a: " * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deep: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"name: x\ndeep: {deep}\n")
    assert "YAML nested too deeply" in validate(path, capsys)


def test_a_broken_set_value_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(scenario(tmp_path)), "--set", "seed=[1"]) == 2
    assert "--set seed: value is not a YAML scalar" in capsys.readouterr().err


def test_metric_names_are_exactly_what_summary_metrics_produces() -> None:
    from .report_fixtures import rich_result

    result = rich_result()
    result.faults = {  # a faulted run with a fault-free twin (emulator.faults.report)
        "faults": [{"time_to_detect_ms": 30.0, "time_to_repair_ms": 31.0, "packets_lost": 65}],
        "retransmissions": 73,
        "qp_errors": 0,
        "icrc_errors": 0,
        "slowdown": 1.83,
    }
    # fat flows on known uplinks (collision metrics), an IB RNIC that waited for credits
    result.flows = [f.model_copy(update={"uplinks": ["rtsw0:5"]}) for f in result.flows]
    result.hosts = {"h0": {"credit_stalled_ns": 2_000_000}}
    spine_up = {"src": "ctsw0", "dst": "atsw0", "kind": "agg", "up": True, "bytes": 4096}
    agg = result.links[0].model_copy(update=spine_up)
    result.links = [*result.links, agg]
    stage = {"axis": "dp", "duration_ns": 3_000_000, "cross_zone_bytes": 4096}
    compute = {"axis": "compute", "duration_ns": 1_000_000, "cross_zone_bytes": 0}
    result.training = {"complete": True, "step_ns": 4_000_000, "stages": [stage, compute]}
    assert set(summary_metrics(result)) == METRIC_NAMES


def test_a_reason_set_before_the_runtime_stays_first() -> None:
    meta = RunMeta(
        scenario="s", runtime="mininet", target="builtin", incomplete_reason="interrupted"
    )
    out = finished_meta(meta, 5, ["h0: workload not done"])
    assert out.incomplete_reason == "interrupted; h0: workload not done"


def test_wall_limit_stops_a_virtual_run_with_partial_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = scenario(tmp_path, duration_ms=600_000, **{"workload.size_bytes": 10**12})
    code = main(["run", str(path), "--runtime", "virtual", "--wall-limit", "2",
                 "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 1
    meta = json.loads((tmp_path / "out" / "result.json").read_text())["meta"]
    assert meta["complete"] is False
    assert meta["incomplete_reason"].startswith("wall-clock limit of 2 s reached")
    assert 2 <= meta["wall_s"] < 30
    assert (tmp_path / "out" / "run.log").exists()
