"""Faults in the virtual runtime, end to end through the runner: what is lost, what the
control plane repairs and when, what the RNICs retransmit, what fails for good."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from emulator.cli.main import main
from emulator.scenario.report import write_report
from emulator.scenario.runview import as_view

from .scn import ROOT, run, write

UPLINK = ["rtsw0", "ctsw0"]  # h1 -> h3 leaves rtsw0 this way (seed 3)


def _fault(outcome: Any, i: int = 0) -> dict[str, Any]:
    assert outcome.error is None, outcome.error
    faults = outcome.result.faults
    assert faults is not None
    return faults["faults"][i]


def test_link_down_is_repaired_after_the_detection_delay(tmp_path: Path) -> None:
    base = run(tmp_path / "a").result
    out = run(tmp_path / "b", faults=[{"at_ms": 40, "kind": "link_down", "link": UPLINK}])
    r = out.result
    f = _fault(out)
    assert r.meta.complete and r.conservation is not None and r.conservation.ok
    assert f["time_to_detect_ms"] == 20.0 and f["repairs"] == 1
    assert r.faults is not None
    assert r.faults["repairs"][0]["installed_ns"] == 60_000_000
    assert {"rtsw0", "ctsw0"} <= set(f["switches_repaired"])
    assert f["packets_lost"] > 0 and f["retransmissions"] > 0
    assert f["time_to_repair_ms"] is not None and f["time_to_repair_ms"] >= 20.0
    assert r.faults["qp_errors"] == 0
    assert r.meta.end_ns > base.meta.end_ns  # the failure cost time
    assert "t=40000000 fail_link rtsw0 ctsw0 (1 link(s))" in r.events
    assert out.metrics["fault_packets_lost"] == f["packets_lost"]


def test_unrepaired_link_exhausts_retries_and_reports_a_qp_error(tmp_path: Path) -> None:
    rnic = {"chunk_bytes": 16384, "rto_ms": 30, "retry_cnt": 3}
    fault = {"at_ms": 40, "kind": "link_down", "link": UPLINK}
    switch = {"program": str(ROOT / "p4/roce_fabric.p4"), "control": {"repair": False}}
    out = run(tmp_path, faults=[fault], rnic=rnic, duration_ms=1500, switch=switch)
    r = out.result
    assert not r.meta.complete
    assert r.faults is not None and r.faults["qp_errors"] >= 1
    err = r.faults["qp_error_flows"][0]
    assert err["host"] == "h1" and "retry counter exceeded (3 retries)" in err["error"]
    assert err["t_ns"] > 40_000_000
    assert _fault(out)["time_to_repair_ms"] is None and _fault(out)["repairs"] == 0
    assert out.metrics["qp_errors"] >= 1


def test_switch_down_fails_every_link_and_flap_toggles(tmp_path: Path) -> None:
    faults = [
        {"at_ms": 40, "kind": "switch_down", "switch": "ctsw0"},
        {"at_ms": 150, "kind": "switch_up", "switch": "ctsw0"},
        {"at_ms": 20, "kind": "flap", "link": ["rtsw0", "ctsw1"], "period_ms": 4, "count": 2},
    ]
    out = run(tmp_path, faults=faults)
    r = out.result
    assert r.meta.complete and r.conservation is not None and r.conservation.ok
    assert [_fault(out, i)["link_events"] for i in range(3)] == [2, 2, 4]
    assert r.faults is not None
    ups = [e for e in r.faults["link_events"] if e["fault"] == 1]
    assert all(e["up"] for e in ups)


def _impair(kind: str) -> dict[str, Any]:
    """5% of h1's link frames lost or corrupted from 10 ms for 100 ms."""
    return {"at_ms": 10, "kind": kind, "link": ["h1", "rtsw0"], "probability": 0.05, "for_ms": 100}


def test_random_loss_is_seeded_and_recovered(tmp_path: Path) -> None:
    fault = _impair("loss")
    a = run(tmp_path / "a", faults=[fault])
    b = run(tmp_path / "b", faults=[fault])
    lost = _fault(a)["packets_lost"]
    assert lost > 0 and lost == _fault(b)["packets_lost"]  # the run seed decides
    assert a.result.meta.complete and a.result.totals.drops == lost
    assert a.result.totals.retransmissions > 0


def test_corruption_fails_icrc_at_the_receiver(tmp_path: Path) -> None:
    out = run(tmp_path, faults=[_impair("corrupt")])
    f = _fault(out)
    r = out.result
    assert f["frames_corrupted"] > 0 and r.faults is not None
    assert r.faults["icrc_errors"] == f["frames_corrupted"]
    assert r.meta.complete and r.totals.drops == 0 and r.totals.retransmissions > 0


def test_pfc_watchdog_stops_a_stuck_receiver_from_blocking_others(tmp_path: Path) -> None:
    """h3 stops draining and pauses its leaf: without the watchdog the pause spreads to the
    spine and holds h0 -> h2 (same spine, seed 1) back; with it the queue drops instead."""
    stuck = [{"at_ms": 10, "kind": "stuck_receiver", "host": "h3", "for_ms": 400}]
    program = str(ROOT / "p4/roce_fabric.p4")
    runs = {}
    for wd in (None, 50.0):
        sw: dict[str, Any] = {"program": program, "pfc": {"watchdog_ms": wd} if wd else {}}
        sw["control"] = {"detection_delay_us": 20000}
        runs[wd] = run(tmp_path / str(wd), seed=1, switch=sw, faults=stuck).result
    victim = {wd: next(f for f in r.flows if f.dst == "10.0.1.1") for wd, r in runs.items()}
    assert runs[None].faults is not None and runs[None].faults["pfc_watchdog"] is None
    wd = runs[50.0].faults
    assert wd is not None and wd["pfc_watchdog"]["storms"] >= 1
    assert wd["pfc_watchdog"]["ignored_pauses"] > 0
    assert wd["faults"][0]["packets_lost"] > 0
    assert victim[50.0].end_ns < 300_000_000 < victim[None].end_ns


def test_fault_free_twin_gives_the_slowdown(tmp_path: Path) -> None:
    fault = {"at_ms": 40, "kind": "link_down", "link": UPLINK}
    path = write(tmp_path, faults=[fault])
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--fault-free-twin"]) == 0
    section = json.loads((tmp_path / "o/result.json").read_text())["faults"]
    twin = json.loads((tmp_path / "o/fault_free/result.json").read_text())
    assert "faults" not in twin and twin["totals"]["drops"] == 0
    assert section["fault_free"]["workload_ns"] < section["workload_ns"]
    assert section["slowdown"] == section["workload_ns"] / section["fault_free"]["workload_ns"]
    metrics = json.loads((tmp_path / "o/metrics.json").read_text())
    assert metrics["slowdown"] == section["slowdown"] > 1.0


def test_an_expectation_on_the_slowdown_is_judged_after_the_twin(tmp_path: Path) -> None:
    """``slowdown`` exists only once the fault-free twin has run: the verdicts (exit code,
    metrics, report) are those of the metrics with it, not "missing"."""
    fault = {"at_ms": 40, "kind": "link_down", "link": UPLINK}
    met = write(tmp_path / "met", faults=[fault], expect={"slowdown": {"min": 1.0}})
    assert main(["run", str(met), "--out", str(tmp_path / "a"), "--fault-free-twin"]) == 0
    html = (tmp_path / "a/report.html").read_text()
    assert "slowdown" in html and "missing" not in html
    unmet = write(tmp_path / "unmet", faults=[fault], expect={"slowdown": {"max": 1.0}})
    assert main(["run", str(unmet), "--out", str(tmp_path / "b"), "--fault-free-twin"]) == 1


def test_report_has_a_fault_timeline(tmp_path: Path) -> None:
    out = run(tmp_path, faults=[{"at_ms": 40, "kind": "link_down", "link": UPLINK}])
    view = as_view(out.result)
    assert view.fault_marks == (
        (40_000_000, "rtsw0-ctsw0 down"),
        (60_000_000, "repair rtsw0-ctsw0"),
    )
    html = write_report(tmp_path / "rep", [("", out.result)]).read_text()
    png = tmp_path / "rep/fault_timeline.png"
    assert png.read_bytes()[:4] == b"\x89PNG" and "Faults: uplink utilisation" in html
    clean = run(tmp_path / "clean")
    write_report(tmp_path / "rep2", [("", clean.result)])
    assert not (tmp_path / "rep2/fault_timeline.png").exists()  # no faults: no timeline
