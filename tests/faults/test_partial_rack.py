"""Path pinning's second failure mode, a partially allocated rack (Meta: pinning degraded
training by more than 30%; E-ECMP kept going), against the maths of the pin map.

Pinning sends a flow out of the source leaf's uplink ``members[slot(dst) % uplinks]``
(``slot``: the destination's downlink index on its own leaf). ``scenarios/partial_rack_pinning.yaml``:
rack 0 (full) sends one flow per GPU to slots 0 and 1 of racks 1 and 2, so two uplinks
carry two flows each and two carry none; with rack 1 fully allocated every uplink carries
one. The busiest uplink sets the time: twice the full rack's.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from emulator.scenario.load import ALIASES, load_scenario
from emulator.scenario.runner import RunOutcome, run_scenario
from emulator.topology import load_clos, resolve

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios/partial_rack_pinning.yaml"
TOPO = resolve(load_clos("calib_4x4"))
RATE_BPS = 10e6


def _variant(name: str, tmp: Path) -> RunOutcome:
    named = load_scenario(SCENARIO).variants[name]
    overrides = {ALIASES.get(k, k): v for k, v in named.items()}
    out = run_scenario(SCENARIO, overrides, out=tmp / name, report=False)
    assert out.error is None and out.result.meta.complete, out.error
    return out


def _pinned_uplink(src: str, dst: str) -> str:
    """The pin map: the destination's slot on its leaf, modulo the source leaf's uplinks."""
    leaf, _ = TOPO.peer(src, 0)
    dleaf, _ = TOPO.peer(dst, 0)
    slots = sorted(p.number for p in TOPO.switch(dleaf).host_ports)
    slot = slots.index(TOPO.peer(dst, 0)[1])
    ups = sorted(p.number for p in TOPO.switch(leaf).ports if p.kind != "host")
    return f"{leaf}:{ups[slot % len(ups)]}"


def _uplink_flows(out: RunOutcome) -> Counter[str]:
    """Flows (QP flows under E-ECMP) leaving rtsw0 per uplink, as measured on the wire."""
    n: Counter[str] = Counter()
    for f in out.result.flows:
        assert len(f.uplinks) == 1, f  # one QP flow takes one path
        n[f.uplinks[0]] += 1
    return n


def _uplink_bytes(out: RunOutcome) -> dict[int, int]:
    return {
        lk.src_port: lk.bytes
        for lk in out.result.links
        if lk.src == "rtsw0" and lk.kind == "fabric"
    }


def _pairs(out: RunOutcome) -> list[tuple[str, str]]:
    pairs = out.scenario.workload.pairs
    assert pairs is not None
    return [(a, b) for a, b in pairs]


def test_pinning_piles_a_partial_rack_onto_half_the_uplinks(tmp_path: Path) -> None:
    full, partial = _variant("pinning_full", tmp_path), _variant("pinning_partial", tmp_path)
    for out in (full, partial):
        predicted = Counter(_pinned_uplink(a, b) for a, b in _pairs(out))
        assert _uplink_flows(out) == predicted
    assert sorted(_uplink_flows(full).values()) == [1, 1, 1, 1]
    assert sorted(_uplink_flows(partial).values()) == [2, 2]  # two uplinks idle
    assert sorted(_uplink_bytes(partial).values())[:2] == [0, 0]
    ratio = partial.metrics["collective_ms"] / full.metrics["collective_ms"]
    busiest = max(_uplink_flows(partial).values())
    assert abs(ratio - busiest) < 0.1 * busiest  # the busiest uplink's share sets the time


def test_eecmp_spreads_the_partial_rack_over_every_uplink(tmp_path: Path) -> None:
    pin, eecmp = _variant("pinning_partial", tmp_path), _variant("eecmp_qps16_partial", tmp_path)
    flows = _uplink_flows(eecmp)
    assert sum(flows.values()) == 4 * 16 and len(flows) == 4  # 64 QP flows, no idle uplink
    sent = _uplink_bytes(eecmp)
    imbalance = max(sent.values()) * len(sent) / sum(sent.values())
    assert imbalance < pin.metrics["max_uplink_imbalance"] == 2.0
    t = eecmp.metrics["collective_ms"]
    assert max(sent.values()) * 8 / RATE_BPS * 1e3 <= t < pin.metrics["collective_ms"]


def test_pin_map_helper_matches_the_control_plane() -> None:
    """The helper's map is the controller's: pin values are downlink slots (not hard-coded)."""
    from emulator.control.routes import compute_routes

    pins: dict[str, Any] = dict(compute_routes(TOPO)["rtsw0"].pins)
    for host in ("h4", "h5", "h8", "h9"):
        up = _pinned_uplink("h0", host)
        assert int(up.split(":")[1]) - 5 == pins[f"{TOPO.host(host).ip}/32"]
