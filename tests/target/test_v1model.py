"""simple_switch packet flow: drop rules, clones, resubmit, recirculate, multicast, digests,
truncate, the traffic manager hand-off (queue metadata, priorities) and PFC frames."""

from __future__ import annotations

import pytest

from emulator.target.switch import Switch

from .bmv2json import Program, assign, ex, fld, hdr, hexv, masked, prim, rd
from .fakes import FifoTM

SM = "standard_metadata"
ETYPE = fld("ethernet", "etherType")
DST, SRC = fld("ethernet", "dstAddr"), fld("ethernet", "srcAddr")
COUNT = fld("scalars", "m_count")


def flow_program():
    p = Program(scalars=[("m_count", 8), ("m_other", 8)])
    p.header("ethernet", [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)])
    p.state("start", [prim("extract", {"type": "regular", "value": "ethernet"})])
    p.doc["field_lists"].append({"id": 1, "name": "fl", "elements": [COUNT]})
    p.doc["learn_lists"].append(
        {"id": 1, "name": "mac_learn_digest", "elements": [SRC, fld(SM, "ingress_port")]}
    )
    es = fld(SM, "egress_spec")
    a = {}
    a["fwd"] = p.action("fwd", [("port", 9)], [assign(es, rd(0))])
    a["clone_fwd"] = p.action(
        "clone_fwd",
        [("port", 9), ("session", 32)],
        [
            assign(COUNT, hexv(7)),
            prim("clone_ingress_pkt_to_egress", rd(1), hexv(1)),
            assign(es, rd(0)),
        ],
    )
    a["resub"] = p.action(
        "resub",
        [],
        [
            assign(COUNT, masked(ex("+", COUNT, hexv(1)), 8)),
            assign(DST, COUNT),
            assign(es, hexv(2)),
            prim("_jump_if_zero", ex("b2d", None, ex("<", COUNT, hexv(3))), hexv(5)),
            prim("resubmit", hexv(1)),
        ],
    )
    a["mcast"] = p.action("mcast", [("grp", 16)], [assign(fld(SM, "mcast_grp"), rd(0))])
    a["drop"] = p.action("drop", [], [prim("mark_to_drop", hdr(SM))])
    a["noop"] = p.action("noop", [], [])
    a["learn"] = p.action(
        "learn", [], [prim("generate_digest", hexv(1), hexv(1)), assign(es, hexv(1))]
    )
    a["prio"] = p.action(
        "prio", [("port", 9), ("prio", 3)], [assign(es, rd(0)), assign(fld(SM, "priority"), rd(1))]
    )
    p.table(0, "ti", [("exact", ["ethernet", "etherType"], None)], list(a.values()), a["noop"])
    mark = [
        assign(
            SRC,
            ex(
                "|",
                ex(
                    "|",
                    ex("<<", fld(SM, "instance_type"), hexv(32)),
                    ex("<<", fld(SM, "egress_rid"), hexv(16)),
                ),
                fld(SM, "egress_port"),
            ),
        ),
        assign(fld("ethernet", "etherType"), masked(ex("|", ETYPE, ex("<<", COUNT, hexv(8))), 16)),
    ]
    e = {}
    e["e_mark"] = p.action("e_mark", [], list(mark))
    e["e_clone"] = p.action(
        "e_clone",
        [("session", 32)],
        [  # clone originals only
            prim(
                "_jump_if_zero",
                ex("b2d", None, ex("==", fld(SM, "instance_type"), hexv(0))),
                hexv(2),
            ),
            prim("clone_egress_pkt_to_egress", rd(0), hexv(1)),
            *mark,
        ],
    )
    e["e_drop"] = p.action("e_drop", [], [*mark, prim("mark_to_drop", hdr(SM))])
    e["e_recirc"] = p.action(
        "e_recirc",
        [],
        [  # first pass (m_count 0): recirculate; second (m_count 9, preserved): mark
            prim("_jump_if_zero", ex("b2d", None, ex("==", COUNT, hexv(0))), hexv(4)),
            assign(COUNT, hexv(9)),
            prim("recirculate", hexv(1)),
            prim("_jump", hexv(4 + len(mark))),
            *mark,
        ],
    )
    e["e_qmeta"] = p.action(
        "e_qmeta",
        [],
        [
            assign(
                SRC, ex("|", ex("<<", fld(SM, "enq_qdepth"), hexv(32)), fld(SM, "deq_timedelta"))
            ),
            assign(DST, ex("|", ex("<<", fld(SM, "priority"), hexv(40)), fld(SM, "enq_timestamp"))),
        ],
    )
    e["e_trunc"] = p.action("e_trunc", [], [*mark, prim("truncate", hexv(20))])
    p.table(1, "te", [("exact", ["ethernet", "etherType"], None)], list(e.values()), e["e_mark"])
    return p.doc


def frame(etype: int, payload: bytes = b"payload!") -> bytes:
    return b"\xff" * 6 + b"\x00\x00\x00\x00\x00\x0a" + etype.to_bytes(2, "big") + payload


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


@pytest.fixture
def sw():
    clock = Clock()
    s = Switch(flow_program(), clock=clock, tm=FifoTM(clock))
    for port in range(1, 6):
        s.add_port(port)
    return s


def mark_of(out: bytes) -> tuple[int, int, int]:
    v = int.from_bytes(out[6:12], "big")
    return v >> 32, (v >> 16) & 0xFFFF, v & 0xFFFF  # instance_type, egress_rid, egress_port


def test_drop_rules(sw):
    sw.cli("table_add ti drop 0x0001 =>")
    assert sw.process(1, frame(0x0001)) == []
    [(port, _)] = sw.process(1, frame(0x0002))  # no action ran: egress_spec 0 -> port 0
    assert port == 0
    sw.cli("table_add ti fwd 0x0003 => 3")
    sw.cli("table_add te e_drop 0x0003 =>")
    assert sw.process(1, frame(0x0003)) == []  # mark_to_drop in egress drops
    assert sw.stats["dropped"] == 2


def test_i2e_clone_goes_to_mirror_port_with_original_packet(sw):
    sw.cli("mirroring_add 5 4")
    sw.cli("table_add ti clone_fwd 0x0010 => 2 5")
    out = sw.process(1, frame(0x0010))
    assert sorted(p for p, _ in out) == [2, 4]
    by_port = dict(out)
    assert mark_of(by_port[4]) == (1, 0, 4)  # INGRESS_CLONE
    assert by_port[4][12:14] == bytes([7, 0x10])  # preserved m_count = 7 reached egress
    assert mark_of(by_port[2]) == (0, 0, 2)
    sw.cli("mirroring_delete 5")
    assert [p for p, _ in sw.process(1, frame(0x0010))] == [2]  # unconfigured session


def test_e2e_clone_and_mirroring_to_multicast(sw):
    sw.cli("table_add ti fwd 0x0020 => 3")
    sw.cli("table_add te e_clone 0x0020 => 6")
    sw.cli("mirroring_add 6 5")
    out = dict(sw.process(1, frame(0x0020)))
    assert len(out) == 2 and set(out) == {3, 5}
    assert mark_of(out[5])[0] == 2  # EGRESS_CLONE
    sw.cli("mc_mgrp_create 9")
    sw.cli("mc_node_associate 9 " + sw.cli("mc_node_create 3 1 2").rsplit(" ", 1)[1])
    sw.cli("mirroring_add_mc 6 9")
    out = sw.process(1, frame(0x0020))
    assert sorted(p for p, _ in out) == [1, 2, 3]


def test_resubmit_preserves_field_list(sw):
    sw.cli("table_add ti resub 0x0030 =>")
    [(port, out)] = sw.process(1, frame(0x0030))
    assert port == 2
    assert out[5] == 3  # three ingress passes, counter carried by the field list
    assert mark_of(out)[0] == 0  # simple_switch marks unicast packets NORMAL before egress


def test_recirculate(sw):
    sw.cli("table_add ti fwd 0x0040 => 3")
    sw.cli("table_add te e_recirc 0x0040 =>")
    [(port, out)] = sw.process(1, frame(0x0040))
    assert port == 3
    assert mark_of(out)[0] == 0  # NORMAL again in egress (as simple_switch)
    assert out[12] == 9  # m_count preserved through recirculation


def test_multicast_replication_and_rid(sw):
    assert sw.cli("mc_mgrp_create 7") == "Creating multicast group 7"
    assert sw.cli("mc_node_create 11 1 3").endswith("node was created with handle 0")
    sw.cli("mc_node_create 22 4")
    sw.cli("mc_node_associate 7 0")
    sw.cli("mc_node_associate 7 1")
    sw.cli("table_add ti mcast 0x0050 => 7")
    out = sw.process(1, frame(0x0050))
    assert [(p, mark_of(o)) for p, o in out] == [(1, (5, 11, 1)), (3, (5, 11, 3)), (4, (5, 22, 4))]
    sw.cli("mc_node_dissociate 7 0")
    assert [p for p, _ in sw.process(1, frame(0x0050))] == [4]


def test_digest_and_truncate(sw):
    sw.cli("table_add ti learn 0x0060 =>")
    sw.process(2, frame(0x0060))
    [d] = sw.pop_digests()
    assert d.name == "mac_learn_digest" and d.values == (0x0A, 2)
    sw.cli("table_add ti fwd 0x0070 => 1")
    sw.cli("table_add te e_trunc 0x0070 =>")
    [(_, out)] = sw.process(1, frame(0x0070, b"x" * 100))
    assert len(out) == 20


def test_tm_path_fills_queue_metadata_and_priority(sw):
    sw.cli("table_add ti prio 0x0080 => 3 5")
    sw.cli("table_add te e_qmeta 0x0080 =>")
    sw.clock.now = 1_000_000
    assert sw.receive(1, frame(0x0080)) == [3]
    assert sw.receive(2, frame(0x0080)) == [3]
    assert sw.tm.ingress_ports == [1, 2]  # for switch-side PFC generation
    sw.clock.now = 1_250_000
    assert sw.transmit_ready(3) == 1_250_000
    first, second = sw.transmit(3), sw.transmit(3)
    assert sw.transmit(3) is None
    qd1, dt1 = int.from_bytes(first[6:8], "big"), int.from_bytes(first[8:12], "big")
    assert (qd1, dt1) == (0, 250)  # enq_qdepth 0, 250 us queued
    assert int.from_bytes(second[6:8], "big") == 1
    assert first[0] == 5 and int.from_bytes(first[1:6], "big") == 1000  # priority, enq ts (us)


def test_unknown_egress_port_is_counted(sw):
    sw.cli("table_add ti fwd 0x0090 => 200")
    assert sw.receive(1, frame(0x0090)) == []
    assert sw.stats["unknown_port"] == 1


def test_pfc_frames_reach_tm_and_pipeline_unless_consumed():
    pfc = b"\x01\x80\xc2\x00\x00\x01" + b"\x00" * 6 + b"\x88\x08" + b"\x01\x01" + b"\x00" * 20
    clock = Clock()
    tm = FifoTM(clock)
    s = Switch(flow_program(), clock=clock, tm=tm)
    s.add_port(1)
    s.cli("table_add ti fwd 0x8808 => 1")
    assert s.receive(1, pfc) == [1]
    assert tm.pfc_seen == [(1, pfc)]
    s2 = Switch(flow_program(), clock=clock, tm=FifoTM(clock), pfc_to_pipeline=False)
    s2.add_port(1)
    s2.cli("table_add ti fwd 0x8808 => 1")
    assert s2.receive(1, pfc) == []


def test_queue_commands_reach_the_tm(sw):
    sw.cli("set_queue_depth 64 3 1")
    sw.cli("set_queue_rate 1000")
    assert sw.tm.depth_calls == [(64, 3, 1)]
    assert sw.tm.rate_calls == [(1000.0, None, None)]


def test_real_tm_integration():
    tm_mod = pytest.importorskip("emulator.target.tm")
    clock = Clock()
    s = Switch(flow_program(), clock=clock, priority_queues=8)
    assert isinstance(s.tm, tm_mod.TrafficManager)
    s.add_port(3, 10e9)
    s.cli("table_add ti prio 0x0080 => 3 6")
    s.cli("table_add te e_qmeta 0x0080 =>")
    assert s.receive(1, frame(0x0080)) == [3]
    out = s.transmit(3)
    assert out is not None and out[0] == 6


def test_process_drops_priorities_without_a_queue():
    one = Switch(flow_program(), tm=FifoTM(lambda: 0))
    one.cli("table_add ti prio 0x0080 => 3 5")
    assert one.process(1, frame(0x0080)) == []
    assert one.stats["bad_priority"] == 1
    eight = Switch(flow_program(), priority_queues=8, tm=FifoTM(lambda: 0))
    eight.cli("table_add ti prio 0x0080 => 3 5")
    assert [p for p, _ in eight.process(1, frame(0x0080))] == [3]


def test_endless_resubmit_and_clone_loops_are_bounded():
    p = Program()
    p.header("ethernet", [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)])
    p.state("start", [prim("extract", {"type": "regular", "value": "ethernet"})])
    again = p.action("again", [], [prim("resubmit_preserving_field_list", hexv(0))])
    fwd = p.action("fwd", [], [assign(fld(SM, "egress_spec"), hexv(1))])
    p.table(0, "ti", [("exact", ["ethernet", "etherType"], None)], [again, fwd], fwd)
    storm = p.action("storm", [], [prim("clone_egress_pkt_to_egress", hexv(1), hexv(0))])
    p.table(1, "te", [], [storm], storm)
    sw = Switch(p.doc, tm=FifoTM(lambda: 0))
    sw.cli("table_add ti again 0x0001 =>")
    assert sw.process(1, frame(0x0001)) == []
    assert sw.stats["reentry_limit"] == 1
    sw.cli("mirroring_add 1 2")
    out = sw.process(1, frame(0x0002))  # every egress pass clones again: capped
    assert 0 < len(out) <= 4096
