"""Faults in the Mininet runtime (root): link and switch down/up by ``ip link`` in real
time, the control plane's repair through the switches' CLI, and nothing left afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.errors import UserError
from emulator.topology import load_clos, resolve

from .scn import ROOT, run
from .scn import children as _children

pytestmark = pytest.mark.mininet


def test_link_and_switch_faults_in_mininet_leave_nothing_running(tmp_path: Path) -> None:
    before = _children()
    faults = [
        {"at_ms": 1100, "kind": "link_down", "link": ["rtsw0", "ctsw0"]},
        {"at_ms": 1250, "kind": "switch_down", "switch": "ctsw1"},
        {"at_ms": 1400, "kind": "switch_up", "switch": "ctsw1"},
        {"at_ms": 1550, "kind": "link_up", "link": ["rtsw0", "ctsw0"]},
    ]
    rnic = {"chunk_bytes": 16384, "rto_ms": 200}
    work = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]], "size_bytes": 1 << 20}
    switch = {"program": str(ROOT / "p4/roce_fabric.p4"), "control": {"detection_delay_us": 50000}}
    out = run(tmp_path, faults=faults, rnic=rnic, workload=work, runtime="mininet",
              duration_ms=30000, switch=switch)  # fmt: skip
    r = out.result
    assert out.error is None, out.error
    assert r.meta.runtime == "mininet" and r.meta.complete
    assert r.faults is not None
    events = [(e["link"], e["up"]) for e in r.faults["link_events"]]
    assert events == [
        ("rtsw0-ctsw0", False),
        ("ctsw1-rtsw0", False), ("ctsw1-rtsw1", False),
        ("ctsw1-rtsw0", True), ("ctsw1-rtsw1", True),
        ("rtsw0-ctsw0", True),
    ]  # fmt: skip
    assert len(r.faults["repairs"]) == 6
    for rep in r.faults["repairs"]:
        assert rep["installed_ns"] - rep["event_ns"] >= 50_000_000
    assert any("fail_link rtsw0 ctsw0" in e for e in r.events)
    assert any("restore_link ctsw1 rtsw1" in e for e in r.events)
    topo = resolve(load_clos("two_rack_2spine"))
    names = [p.intf for s in topo.switches for p in s.ports]
    assert not any(Path(f"/sys/class/net/{n}").exists() for n in names)
    assert _children() <= before  # no switch, RNIC or host shell left behind


def test_loss_and_corruption_in_the_switch_processes(tmp_path: Path) -> None:
    """rtsw1 drops 5% of what it sends to h3 and corrupts 5% of what it sends to h2."""
    faults = [
        {"at_ms": 1000, "kind": "loss", "link": ["rtsw1", "h3"], "probability": 0.05, "for_ms": 20000},
        {"at_ms": 1000, "kind": "corrupt", "link": ["rtsw1", "h2"], "probability": 0.05,
         "for_ms": 20000},
    ]  # fmt: skip
    rnic = {"chunk_bytes": 16384, "rto_ms": 200}
    out = run(tmp_path, faults=faults, rnic=rnic, runtime="mininet", duration_ms=30000)
    r = out.result
    assert out.error is None, out.error
    assert r.meta.complete and r.faults is not None
    loss, corrupt = r.faults["faults"]
    assert loss["packets_lost"] > 0 and corrupt["frames_corrupted"] > 0
    assert r.faults["icrc_errors"] > 0 and r.totals.retransmissions > 0


def test_stuck_receiver_and_watchdog_are_refused_on_bmv2(tmp_path: Path) -> None:
    """simple_switch has no PFC: neither a PFC storm nor a watchdog means anything there."""
    fault = {"at_ms": 10, "kind": "stuck_receiver", "host": "h3", "for_ms": 5}
    switch = {"program": str(ROOT / "p4/roce_fabric.p4"), "pfc": {"watchdog_ms": 50}}
    with pytest.raises(UserError, match="needs the built-in target"):
        run(tmp_path, faults=[fault], runtime="mininet", target="bmv2", switch=switch)


def test_pfc_watchdog_frees_the_innocent_flow_from_a_stuck_receiver_in_mininet(
    tmp_path: Path,
) -> None:
    """h3's RNIC process stops draining and storms PFC at rtsw1: without the watchdog the
    pause spreads and h0 -> h2 (same spine, seed 1) waits for h3; with it it finishes sooner."""
    stuck = [{"at_ms": 1000, "kind": "stuck_receiver", "host": "h3", "for_ms": 2500}]
    work = {"kind": "fat_flows", "pairs": [["h0", "h2"], ["h1", "h3"]], "size_bytes": 1 << 20}
    rnic = {"chunk_bytes": 16384, "rto_ms": 200}
    runs = {}
    for wd in (None, 200.0):
        sw: dict[str, Any] = {"program": str(ROOT / "p4/roce_fabric.p4")}
        sw["pfc"] = {"watchdog_ms": wd} if wd else {}
        out = run(tmp_path / str(wd), seed=1, switch=sw, faults=stuck, workload=work,
                  rnic=rnic, runtime="mininet", duration_ms=20000)  # fmt: skip
        assert out.error is None, out.error
        runs[wd] = out.result
    assert runs[None].faults is not None and runs[None].faults["pfc_watchdog"] is None
    f = runs[200.0].faults
    assert f is not None and f["pfc_watchdog"]["storms"] >= 1
    assert f["pfc_watchdog"]["ignored_pauses"] > 0 and f["faults"][0]["packets_lost"] > 0
    assert any("stuck_on h3" in e for e in runs[200.0].events)
    victim = {wd: next(x for x in r.flows if x.dst in ("h2", "10.0.1.1")) for wd, r in runs.items()}
    assert victim[200.0].end_ns + 500_000_000 < victim[None].end_ns, victim


def test_unrepaired_link_exhausts_retries_and_reports_a_qp_error_in_mininet(
    tmp_path: Path,
) -> None:
    """repair off: the QPs pinned to the failed uplink time out 3 times and error, and the
    RNIC processes' reports carry it into ``qp_errors`` as in virtual time."""
    rnic = {"chunk_bytes": 16384, "rto_ms": 30, "retry_cnt": 3}
    fault = {"at_ms": 1200, "kind": "link_down", "link": ["rtsw0", "ctsw0"]}
    pairs = [["h0", "h2"], ["h1", "h3"], ["h2", "h0"], ["h3", "h1"]]
    work = {"kind": "fat_flows", "pairs": pairs, "size_bytes": 4 << 20}
    switch = {"program": str(ROOT / "p4/roce_fabric.p4"), "control": {"repair": False}}
    out = run(tmp_path, faults=[fault], rnic=rnic, workload=work, runtime="mininet",
              duration_ms=8000, switch=switch)  # fmt: skip
    r = out.result
    assert not r.meta.complete
    assert r.faults is not None and r.faults["qp_errors"] >= 1
    err = r.faults["qp_error_flows"][0]
    assert err["host"] in {"h0", "h1", "h2", "h3"}
    assert "retry counter exceeded (3 retries)" in err["error"]
    assert err["t_ns"] > 1_200_000_000
    assert r.faults["repairs"] == [] and out.metrics["qp_errors"] == r.faults["qp_errors"]
