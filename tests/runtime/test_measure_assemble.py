"""The one result assembler (``emulator.measure.assemble``) and the typed flow id."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from emulator.measure.assemble import assemble, data_drops
from emulator.measure.flowid import FlowId
from emulator.measure.flows import FlowRecord
from emulator.measure.observations import (
    PROCESS_DROPS,
    VIRTUAL_DROPS,
    FlowObs,
    HostObs,
    RunObservations,
    SwitchObs,
)
from emulator.measure.results import RunMeta, RunResult

META = RunMeta(scenario="t", runtime="virtual", target="builtin")
QPN = st.integers(min_value=0, max_value=(1 << 24) - 1)


@given(QPN, QPN)
def test_a_flow_id_reads_back_what_it_writes(src: int, dst: int) -> None:
    fid = FlowId(src, dst)
    assert FlowId.parse(str(fid)) == fid and str(fid) == f"{src:#x}->{dst:#x}"


def _obs(switch: SwitchObs, accounting=VIRTUAL_DROPS, **kw: object) -> RunObservations:
    hosts = [
        HostObs("h0", {"tx_pkts": 13, "rx_pkts": 1, "pause_frames": 1, "cts_latency_ns": [5]}),
        HostObs("h1", {"tx_pkts": 0, "rx_pkts": 6, "pause_frames": 0}, listed=False),
    ]
    rec = FlowRecord("10.0.0.1", "10.0.1.1", FlowId(0x101, 0x301), 4096, 0, 1000)
    return RunObservations(
        end_ns=1000, hosts=hosts, switches=[switch], links=[], queues=[], pauses=[],
        flows=[FlowObs(rec, ["rtsw0:5"], "measured")], collectives=[], accounting=accounting,
        **kw,
    )  # type: ignore[arg-type]  # fmt: skip


def test_virtual_accounting_counts_every_drop_of_an_rnic_frame() -> None:
    # 5 dropped by P4, 2 of them PFC frames; 1 tail drop of a clone; 1 unknown port
    sw = SwitchObs(
        "rtsw0",
        {"dropped": 5.0, "tail_dropped": 2.0, "unknown_port": 1.0, "pfc_rx": 2.0, "pfc_tx": 3.0},
        {"p4_ecn_marks": 4.0},
        pfc_consumed=2,
        copy_drops=1,
        queued=1,
    )
    assert data_drops(sw, VIRTUAL_DROPS) == 5
    r = assemble(_obs(sw, wire_drops=1, wire_in_flight=0, ce_delivered=9), META)
    assert list(r.switches["rtsw0"])[-2:] == ["data_drops", "p4_ecn_marks"]
    assert (r.totals.packets_sent, r.totals.packets_delivered, r.totals.drops) == (13, 6, 6)
    assert r.totals.ecn_marks == 4 and r.totals.pause_frames == 3  # the program counts marks
    assert r.conservation is not None and r.conservation.in_flight == 1
    assert r.conservation.ok and list(r.hosts) == ["h0"] and r.cts_latency_ns == [5]
    assert r.meta.end_ns == 1000


def test_process_accounting_bounds_the_pfc_frames_a_program_consumed() -> None:
    # a process reports counters only: 3 P4 drops, 1 counted by the program, 2 PFC frames in
    counters = {"dropped": 3.0, "p4_drops": 1.0, "pfc_rx": 2.0, "tail_dropped": 2.0}
    sw = SwitchObs("ctsw0", {**counters, "tx_errors": 1.0}, queued=0)
    assert data_drops(sw, PROCESS_DROPS) == 1  # the tail drops are counted beside
    r = assemble(_obs(sw, PROCESS_DROPS), META)
    assert r.totals.drops == 1 + 2 + 1 and r.totals.ecn_marks == 0
    assert r.conservation is not None and r.conservation.imbalance == 13 - 6 - 4


def test_the_flow_id_keeps_its_text_form_in_result_json() -> None:
    sw = SwitchObs("rtsw0", {})
    r = assemble(_obs(sw), META)
    doc = json.loads(r.model_dump_json())
    assert doc["flows"][0]["flow_id"] == "0x101->0x301"
    again = RunResult.model_validate_json(r.model_dump_json())
    assert again.flows[0].flow_id == FlowId(0x101, 0x301)
    assert again.flows[0].uplinks == ["rtsw0:5"] and again.flows[0].uplinks_source == "measured"
