"""The ``faults:`` list: what each kind needs, and names checked against the topology
(file + key path, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.main import main
from emulator.faults.schema import Fault
from emulator.faults.timeline import expand
from emulator.scenario.load import ScenarioError, load_scenario
from emulator.topology import load_clos, resolve

from .scn import write


def test_each_kind_parses() -> None:
    kinds = [
        {"kind": "link_down", "link": ["rtsw0", "ctsw0"]},
        {"kind": "switch_up", "switch": "ctsw0"},
        {"kind": "flap", "link": ["rtsw0", "ctsw0"], "period_ms": 10, "count": 2},
        {"kind": "loss", "link": ["rtsw0", "ctsw0"], "probability": 0.1, "for_ms": 5},
        {"kind": "corrupt", "link": ["h0", "rtsw0"], "probability": 0.5, "for_ms": 5},
        {"kind": "stuck_receiver", "host": "h3", "for_ms": 5},
    ]
    for k in kinds:
        assert Fault.model_validate({"at_ms": 1, **k}).kind == k["kind"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "link_down", "switch": "ctsw0"}, "link_down needs 'link'"),
        ({"kind": "flap", "link": ["a", "b"]}, "flap needs 'period_ms'"),
        ({"kind": "loss", "link": ["a", "b"], "for_ms": 1}, "loss needs 'probability'"),
        ({"kind": "loss", "link": ["a", "b"], "probability": 0.9, "for_ms": 1}, "less than or"),
        ({"kind": "corrupt", "link": ["a", "b"], "probability": 0.1}, "needs 'for_ms'"),
        ({"kind": "link_up", "link": ["a", "b"], "for_ms": 3}, "takes no 'for_ms'"),
        ({"kind": "explode", "link": ["a", "b"]}, "kind"),
    ],
)
def test_bad_entries_name_the_key(tmp_path: Path, entry: dict, message: str) -> None:
    path = write(tmp_path, faults=[{"at_ms": 1, **entry}])
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    text = str(err.value)
    assert f"{path}: faults[0]" in text and message in text


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "link_down", "link": ["rtsw0", "ctsw9"]}, "faults[0].link: no node 'ctsw9'"),
        ({"kind": "link_down", "link": ["rtsw0", "rtsw1"]}, "no link between rtsw0 and rtsw1"),
        ({"kind": "switch_down", "switch": "h0"}, "faults[0].switch: no switch 'h0'"),
        ({"kind": "stuck_receiver", "host": "h9", "for_ms": 1}, "faults[0].host: no host 'h9'"),
    ],
)
def test_unknown_names_exit_2_with_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict, message: str
) -> None:
    path = write(tmp_path, faults=[{"at_ms": 1, **entry}])
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"INVALID {path}: " in out and message in out
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err and "Traceback" not in err


def test_timeline_expands_switches_and_flaps() -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    faults = [
        Fault(at_ms=5, kind="switch_down", switch="ctsw0"),
        Fault(at_ms=1, kind="flap", link=("rtsw0", "ctsw1"), period_ms=2, count=3),
    ]
    acts = expand(faults, topo)
    assert [a.t_ns for a in acts] == sorted(a.t_ns for a in acts)
    flap = [(a.t_ns, a.op) for a in acts if a.fault == 1]
    assert flap == [
        (1_000_000, "down"), (2_000_000, "up"), (3_000_000, "down"),
        (4_000_000, "up"), (5_000_000, "down"), (6_000_000, "up"),
    ]  # fmt: skip
    down = sorted((a.a, a.b) for a in acts if a.fault == 0)
    assert down == [("ctsw0", "rtsw0"), ("ctsw0", "rtsw1")]


def test_empty_faults_leave_dumps_unchanged(tmp_path: Path) -> None:
    sc = load_scenario(write(tmp_path))
    dumped = sc.model_dump(mode="json")
    assert "faults" not in dumped and "retry_cnt" not in dumped["rnic"]
    sc2 = load_scenario(
        write(tmp_path, faults=[{"at_ms": 1, "kind": "switch_down", "switch": "ctsw0"}])
    )
    assert sc2.model_dump(mode="json")["faults"][0]["switch"] == "ctsw0"
