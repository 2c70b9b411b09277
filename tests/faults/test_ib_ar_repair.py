"""InfiniBand adaptive routing across a re-sweep: the AR port sets follow the topology (the
ports of a dead link leave every group, a restored link's come back), as a real SM with AR
reprograms the switches' AR groups; without that the switches keep steering packets into
the dead port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator.faults import ib_resweep
from emulator.ib.commands import ar_diff, equal_cost_ports, switch_ops
from emulator.ib.routing import IbRouting
from emulator.target.ops import RegisterWrite
from emulator.topology import load_clos, resolve

from .scn import ROOT, run

DEAD = frozenset(("rtsw0", "ctsw0"))


def _routing(topo: Any) -> IbRouting:
    """LIDs 1.. in topology order (the groups do not depend on OpenSM's numbering)."""
    names = [n.name for n in (*topo.switches, *topo.hosts)]
    return IbRouting(
        "ftree", 0, {n: i + 1 for i, n in enumerate(names)}, {s.name: {} for s in topo.switches}
    )


def test_groups_lose_the_dead_port_and_get_it_back() -> None:
    topo = resolve(load_clos("two_rack_4spine"))
    routing = _routing(topo)
    full = equal_cost_ports(topo, routing)
    cut = equal_cost_ports(topo, routing, {DEAD})
    h4 = routing.base_lids["h4"]  # rack 1: rtsw0 reaches it over its 4 uplinks (ports 5-8)
    assert full["rtsw0"][h4] == (5, 6, 7, 8) and cut["rtsw0"][h4] == (6, 7, 8)
    ops = ar_diff(full["rtsw0"], cut["rtsw0"])
    assert RegisterWrite("ar_count", h4, 3) in ops and RegisterWrite("ar_last", h4, 0) in ops
    assert RegisterWrite("ar_ports", h4 * 8, 6) in ops
    # ctsw0 reaches rack 0 only through another leaf and spine now: a single port, no AR
    h0 = routing.base_lids["h0"]
    assert len(full["ctsw0"][h0]) == 1 and RegisterWrite("ar_count", h0, 0) not in ar_diff(
        full["ctsw0"], cut["ctsw0"]
    )
    back = ar_diff(cut["rtsw0"], full["rtsw0"])
    assert (
        RegisterWrite("ar_count", h4, 4) in back
        and RegisterWrite("ar_ports", h4 * 8 + 3, 8) in back
    )
    assert not ar_diff(full["rtsw0"], full["rtsw0"])  # nothing changed, nothing written


def test_initial_program_equals_a_diff_from_nothing() -> None:
    """The run's AR registers and a repair from empty groups write the same cells."""
    from emulator.ib.commands import IbSwitchConfig

    topo = resolve(load_clos("two_rack_4spine"))
    routing = _routing(topo)
    initial = {
        op
        for op in switch_ops(topo, routing, IbSwitchConfig(adaptive=True))["rtsw0"]
        if isinstance(op, RegisterWrite)
    }
    diff = {
        op
        for op in ar_diff({}, equal_cost_ports(topo, routing)["rtsw0"])
        if op.register != "ar_last"
    }
    assert initial == diff


def _dead_port_run(tmp: Path, repair_ar: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Four fat flows rack 0 -> rack 1 with AR; rtsw0-ctsw0 down at 40 ms, up at 200 ms."""
    if not repair_ar:  # the old behaviour: LFTs repaired, AR port sets left as they were
        real = ib_resweep.IbRepair
        monkeypatch.setattr(  # the session imports it when an IB run attaches
            ib_resweep, "IbRepair", lambda *a, **k: real(*a, **{**k, "adaptive": False})
        )
    pairs = [["h0", "h4"], ["h1", "h5"], ["h2", "h6"], ["h3", "h7"]]
    out = run(
        tmp,
        topology=str(ROOT / "topologies/two_rack_4spine.yaml"),
        workload={"kind": "fat_flows", "pairs": pairs, "size_bytes": 262144},
        fabric="ib",
        ib={"adaptive_routing": True},
        rnic={"chunk_bytes": 16384, "rto_ms": 30, "ooo_window": 256},
        faults=[
            {"at_ms": 40, "kind": "link_down", "link": ["rtsw0", "ctsw0"]},
            {"at_ms": 200, "kind": "link_up", "link": ["rtsw0", "ctsw0"]},
        ],
    )
    assert out.error is None, out.error
    assert out.result.meta.complete
    return json.loads((tmp / "out" / "result.json").read_text())


def _depth(data: dict[str, Any], t0_ms: int, t1_ms: int) -> list[int]:
    """Queue depth of rtsw0's port 5 (to ctsw0) sampled between the two times."""
    [q] = [q for q in data["queues"] if q["switch"] == "rtsw0" and q["port"] == 5]
    return [d for t, d in zip(q["t_ns"], q["depth"], strict=True) if t0_ms * 1e6 <= t < t1_ms * 1e6]


@pytest.mark.ib
def test_ar_repair_stops_steering_into_the_dead_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _dead_port_run(tmp_path / "ar", True, monkeypatch)
    down, up = data["faults"]["repairs"]
    assert down["ar_writes"] > 0 and up["ar_writes"] > 0 and "rtsw0" in down["switches"]
    held = _depth(data, 61, 200)  # after the repair at 60 ms: nothing new joins the queue
    assert max(held) == held[0]
    [link] = [lk for lk in data["links"] if lk["src"] == "rtsw0" and lk["dst"] == "ctsw0"]
    assert sum(link["utilisation"][221:]) > 1.0  # port 5 is back in the groups (and has credits)
    stale = _dead_port_run(tmp_path / "stale", False, monkeypatch)
    assert "ar_writes" not in stale["faults"]["repairs"][0]
    grew = _depth(stale, 61, 200)
    assert max(grew) > grew[0] + 5  # AR kept picking the dead (empty-looking) port
    assert data["totals"]["retransmissions"] < stale["totals"]["retransmissions"]
