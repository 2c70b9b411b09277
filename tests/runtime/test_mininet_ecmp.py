"""Issue 8's ECMP fat-flow collision, end to end in Mininet (real time, real switch processes).

``scenarios/fat_flow_collision.yaml`` (two_rack_4spine, fat flows h0->h4, h1->h5, h2->h6,
h3->h7) through ``run_scenario(..., runtime="mininet")``:

* ``ecmp``, 1 QP, seed 2: h0->h4 and h2->h6 share rtsw0:5 while rtsw0:8 idles, and the
  collided flows get about half the rate of the others; every flow's uplinks, *measured* from
  the frames captured on the leaf uplinks, equal the uplinks the virtual-time runtime
  measured from the frames leaving its leaf (the hash is deterministic for a seed, so both
  runtimes must agree: measured against measured);
* ``eecmp``, 16 QPs: the leaf's uplinks all carry bytes, max/mean < 1.6 (64 QPs hashed onto
  4 uplinks: balls into bins), and the measured uplinks agree with virtual time.

Overrides keep it short (256 KiB per connection, 16 KiB chunks so all 16 QPs carry data)
and set the PFC pause time to 1000 quanta (51 ms at 10 Mb/s): roce_fabric.p4 releases a
paused neighbour only when a dequeue happens to look at it, and with the default 0xFFFF
quanta (3.4 s at 10 Mb/s) an unreleased host stalls for seconds (seen in 1 of ~6 runs);
the pause length does not change which uplink a flow takes.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from emulator.measure.results import RunResult

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "fat_flow_collision.yaml"
SIZE = 262144
COMMON = {
    "workload.size_bytes": SIZE,
    "rnic.chunk_bytes": 16384,
    "switch.pfc.quanta": 1000,
    "duration_ms": 20000,  # a bound: the run returns as soon as the flows are done
    "seed": 2,  # its source ports put two 1-QP flows on one uplink and leave one idle
}
RATIO = (0.35, 0.65)  # collided / alone throughput (virtual time: 0.50)
IMBALANCE = 1.6  # eecmp leaf uplinks max / mean bytes (balls into bins, seed 2: 1.44)


def _uplink_bytes(r: RunResult) -> dict[str, int]:
    return {f"rtsw0:{ln.src_port}": ln.bytes for ln in r.links if ln.src == "rtsw0" and ln.up}


def _assert_clean(r: RunResult) -> None:
    """A complete, lossless, conserved run that left no interface or child process."""
    assert r.meta.complete, r.meta.incomplete_reason
    assert r.totals.drops == 0 and r.conservation is not None and r.conservation.ok
    topo_ports = [f"{sw}-eth{p}" for sw in ("rtsw0", "rtsw1") for p in range(1, 9)]
    assert not any(Path(f"/sys/class/net/{n}").exists() for n in topo_ports)
    me = str(os.getpid())
    children = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(ln.split(":\t", 1) for ln in status.splitlines() if ":\t" in ln)
        if fields.get("PPid", "").strip() == me and not fields.get("State", "").startswith("Z"):
            children.append(fields.get("Name", pid).strip())
    assert not children, children


@pytest.mark.mininet
@pytest.mark.timeout(150)
def test_ecmp_collision_halves_the_collided_flows_in_mininet(fabemu_run) -> None:
    out = fabemu_run(SCENARIO, COMMON, runtime="mininet", lb="ecmp", qps=1)
    mn = out.result
    _assert_clean(mn)
    assert out.error is None and out.verdicts and all(v.met for v in out.verdicts), out.verdicts
    assert out.metrics["idle_uplinks"] == 1 and out.metrics["max_uplink_imbalance"] > 1.8
    assert len(mn.flows) == 4 and all(f.bytes == SIZE for f in mn.flows)
    assert any("uplinks measured from frames" in e for e in mn.events), mn.events
    vt = fabemu_run(SCENARIO, COMMON, runtime="virtual", lb="ecmp", qps=1).result
    assert all(f.uplinks_source == "measured" for f in [*mn.flows, *vt.flows])
    assert {f.flow_id: f.uplinks for f in mn.flows} == {f.flow_id: f.uplinks for f in vt.flows}
    assert [f.uplinks for f in sorted(mn.flows, key=lambda f: f.src)] == [
        ["rtsw0:5"], ["rtsw0:7"], ["rtsw0:5"], ["rtsw0:6"]
    ]  # fmt: skip
    per_uplink = Counter(f.uplinks[0] for f in mn.flows)
    assert max(per_uplink.values()) == 2 and len(per_uplink) == 3  # a collision, an idle uplink
    loads = _uplink_bytes(mn)
    [idle] = [u for u in loads if u not in per_uplink]
    assert loads[idle] < 2000, loads  # a few small frames at most
    busy = loads["rtsw0:5"]
    assert all(1.8 * loads[u] < busy for u in per_uplink if u != "rtsw0:5"), loads
    collided = [f.throughput_bps for f in mn.flows if per_uplink[f.uplinks[0]] == 2]
    alone = [f.throughput_bps for f in mn.flows if per_uplink[f.uplinks[0]] == 1]
    ratio = (sum(collided) / 2) / (sum(alone) / 2)
    assert RATIO[0] < ratio < RATIO[1], (ratio, collided, alone)
    series = [ln for ln in mn.links if ln.src == "rtsw0" and ln.up]
    assert all(ln.t_ns and len(ln.t_ns) == len(ln.utilisation) for ln in series)
    assert max(max(ln.utilisation) for ln in series) <= 1.2  # the line rate is enforced


@pytest.mark.mininet
@pytest.mark.timeout(150)
def test_eecmp_with_16_qps_balances_the_uplinks_in_mininet(fabemu_run) -> None:
    out = fabemu_run(SCENARIO, COMMON, runtime="mininet", lb="eecmp", qps=16)
    mn = out.result
    _assert_clean(mn)
    assert out.error is None and out.verdicts and all(v.met for v in out.verdicts), out.verdicts
    assert out.metrics["idle_uplinks"] == 0
    assert out.metrics["max_uplink_imbalance"] < IMBALANCE
    assert len(mn.flows) == 64 and sum(f.bytes for f in mn.flows) == 4 * SIZE
    loads = list(_uplink_bytes(mn).values())
    assert len(loads) == 4 and min(loads) > 0
    assert max(loads) / (sum(loads) / 4) < IMBALANCE, loads
    assert {u for f in mn.flows for u in f.uplinks} == set(_uplink_bytes(mn))
    vt = fabemu_run(SCENARIO, COMMON, runtime="virtual", lb="eecmp", qps=16).result
    assert all(f.uplinks_source == "measured" for f in [*mn.flows, *vt.flows])
    assert {f.flow_id: f.uplinks for f in mn.flows} == {f.flow_id: f.uplinks for f in vt.flows}
