"""Per-flow uplinks of Mininet runs (no root): the leaf program run in-process, the check.

The predictor runs roce_fabric.p4 with the controller's commands on a probe frame of each
flow; for the 5-tuple ``ecmp`` mode its answer must equal the crc16 hash definition of the
program (``members[crc16(src, dst, 17, sport, 4791) % n]``), the same expectation the
virtual-time test holds its observed uplinks to.
"""

from __future__ import annotations

import ipaddress
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from emulator.control import FabricConfig, FabricController
from emulator.measure.assemble import data_drops
from emulator.measure.flowid import FlowId
from emulator.measure.flows import FlowRecord
from emulator.measure.observations import PROCESS_DROPS
from emulator.runtime.mininet.collect import RunRecord, _switches
from emulator.runtime.mininet.uplinks import (
    CliChange,
    UplinkPredictor,
    assign_uplinks,
    check_uplinks,
)
from emulator.target.hashes import v1model_hash
from emulator.target.ops import command_ops
from emulator.topology import ResolvedTopology, load_clos, resolve
from emulator.traffic.roce import udp_sport

ROOT = Path(__file__).resolve().parents[2]
PAIRS = [("h0", "h4"), ("h1", "h5"), ("h2", "h6"), ("h3", "h7")]


@cache
def _program() -> dict[str, Any]:
    from emulator.p4c import compile_file

    return compile_file(str(ROOT / "p4" / "roce_fabric.p4"))


@cache
def _topo() -> ResolvedTopology:
    return resolve(load_clos("two_rack_4spine"))


def _predictor(lb: str) -> tuple[UplinkPredictor, FabricController]:
    topo = _topo()
    ctl = FabricController(topo, FabricConfig(lb_mode=lb))
    cmds = {s.name: ctl.switch_ops(s.name) for s in topo.switches}
    return UplinkPredictor(topo, {s.name: _program() for s in topo.switches}, cmds), ctl


def _flow(src: str, dst: str, sqpn: int, dqpn: int, nbytes: int = 262144) -> FlowRecord:
    topo = _topo()
    return FlowRecord(
        src=topo.host(src).ip, dst=topo.host(dst).ip, flow_id=FlowId(sqpn, dqpn),
        bytes=nbytes, start_ns=1_000_000_000, end_ns=1_500_000_000,
    )  # fmt: skip


def _hash_uplink(ctl: FabricController, f: FlowRecord) -> str:
    sqpn, dqpn = f.flow_id.src_qpn, f.flow_id.dst_qpn
    fields = [
        (int(ipaddress.IPv4Address(f.src)), 32),
        (int(ipaddress.IPv4Address(f.dst)), 32),
        (17, 8),
        (udp_sport(sqpn, dqpn), 16),
        (4791, 16),
    ]
    members = ctl.selection("rtsw0", "10.0.1.0/24")
    return f"rtsw0:{members[v1model_hash('crc16', fields, 0, 65536) % len(members)].port}"


# the default QPNs of fat_flows pairs h0->h4 ... (connection i: 0x101 + 0x400 i -> 0x301 + ...)
FLOWS = [_flow(s, d, 0x101 + 0x400 * i, 0x301 + 0x400 * i) for i, (s, d) in enumerate(PAIRS)]


def test_ecmp_prediction_equals_the_hash_definition() -> None:
    pred, ctl = _predictor("ecmp")
    ups = pred.predict(FLOWS)
    assert ups == [[_hash_uplink(ctl, f)] for f in FLOWS]
    # the default pairs collide: h0->h4 and h2->h6 on rtsw0:7, rtsw0:8 idle
    assert ups == [["rtsw0:7"], ["rtsw0:6"], ["rtsw0:7"], ["rtsw0:5"]]
    assert pred.predict([_flow("h0", "h1", 0x101, 0x301)]) == [[]]  # same rack: no uplink


def test_eecmp_spreads_the_qps_of_one_connection() -> None:
    pred, _ = _predictor("eecmp")
    flows = [_flow("h0", "h4", 0x101 + q, 0x301 + q, 16384) for q in range(16)]
    used = {u for ups in pred.predict(flows) for u in ups}
    assert used == {"rtsw0:5", "rtsw0:6", "rtsw0:7", "rtsw0:8"}


def test_typed_repairs_replay_like_their_command_lines() -> None:
    """A controller repair recorded as typed operations moves flows as its CLI text does."""
    pred, ctl = _predictor("ecmp")
    ops = ctl.link_changed("rtsw0", "ctsw2", up=False)
    typed = [CliChange(1_200_000_000, sw, op) for sw, v in ops.items() for op in command_ops(v)]
    text = [CliChange(c.t_ns, c.switch, c.line.cli()) for c in typed]  # type: ignore[union-attr]
    fresh, _ = _predictor("ecmp")
    assert pred.predict(FLOWS, typed) == fresh.predict(FLOWS, text)
    assert len(pred.predict(FLOWS, typed)[0]) == 2


def test_runtime_commands_are_replayed_in_time_order() -> None:
    pred, ctl = _predictor("ecmp")
    changes = [
        CliChange(1_200_000_000, sw, ln)
        for sw, text in ctl.fail_link("rtsw0", "ctsw2").items()
        for ln in text.splitlines()
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    ups = pred.predict(FLOWS, changes)
    assert "rtsw0:7" in ups[0] and len(ups[0]) == 2  # moved off the failed uplink mid-flow
    assert ups[1] == ["rtsw0:6"]  # not on the failed uplink: unchanged
    late = replace(FLOWS[0], start_ns=1_300_000_000, end_ns=1_400_000_000)
    assert pred.predict([late], changes)[0] != ["rtsw0:7"]  # started after the repair


def _final(tx: dict[int, int]) -> dict[str, dict[str, Any]]:
    return {"rtsw0": {"ports": {str(p): {"tx_bytes": b} for p, b in tx.items()}}}


def test_check_agrees_with_matching_counters_and_rejects_a_wrong_hash() -> None:
    pred, _ = _predictor("ecmp")
    observed = _final({5: 277312, 6: 277312, 7: 557538, 8: 930})  # a measured Mininet run
    flows, notes = assign_uplinks(pred, list(FLOWS), observed)
    assert [f.uplinks for f in flows] == [["rtsw0:7"], ["rtsw0:6"], ["rtsw0:7"], ["rtsw0:5"]]
    assert "port counters agree" in notes[0]
    wrong = _final({5: 277312, 6: 277312, 7: 277312, 8: 277312})  # e.g. a per-packet spray
    flows, notes = assign_uplinks(pred, list(FLOWS), wrong)
    assert all(f.uplinks == [] for f in flows) and "disagree" in notes[0]
    ok, diff = check_uplinks(_topo(), FLOWS, pred.predict(FLOWS), observed)["rtsw0"]
    assert ok and diff < 0.01
    assert check_uplinks(_topo(), FLOWS, pred.predict(FLOWS), {})["rtsw0"] is None


def test_pfc_frames_consumed_by_the_program_are_not_data_drops() -> None:
    topo = _topo()
    final: dict[str, Any] = {s.name: {"ports": {}, "switch": {"dropped": 0}} for s in topo.switches}
    final["rtsw1"]["ports"]["7"] = {"pfc_tx": 2}  # rtsw1 port 7 faces ctsw2
    final["ctsw2"]["switch"]["dropped"] = 3  # 2 PFC frames consumed + 1 counted drop
    counted = {s.name: {"p4_drops": 1 if s.name == "ctsw2" else 0} for s in topo.switches}
    rec = RunRecord(0, final=final, program_counters=counted)
    switches = {sw.name: sw for sw in _switches(topo, rec)}
    assert switches["ctsw2"].counters["pfc_rx"] == 2
    assert data_drops(switches["ctsw2"], PROCESS_DROPS) == 1
    assert data_drops(switches["rtsw0"], PROCESS_DROPS) == 0


@pytest.mark.parametrize("flow_id", ["", "a->b", "0x1", "1->2", "0x1->0x2->0x3"])
def test_a_flow_id_is_a_qpn_pair(flow_id: str) -> None:
    with pytest.raises(ValueError, match="flow id"):
        FlowId.parse(flow_id)


def test_the_lines_of_one_repair_are_one_change() -> None:
    from emulator.runtime.mininet.uplinks import _batches

    c = [CliChange(t, "rtsw0", f"l{t}") for t in (300_000_000, 1_000_000, 4_000_000, 30_000_000)]
    assert [[x.t_ns for x in b] for b in _batches(c)] == [
        [1_000_000, 4_000_000, 30_000_000],
        [300_000_000],
    ]
