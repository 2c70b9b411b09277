"""Priority queues (CTS vs bulk), PFC generation under incast, ECN marking, counters."""

from __future__ import annotations

import pytest

from emulator import vocab
from emulator.control import FabricConfig, PfcAgent, PfcConfig
from emulator.control.names import (
    DROP_COUNTER,
    ECN_MARK_COUNTER,
    PFC_RX_COUNTER,
    PFC_RX_QUANTA,
    PFC_TX_COUNTER,
    port_prio_index,
)
from emulator.target.cli_values import parse_counter
from emulator.topology import load_clos, resolve

from .roce_frames import Flow, incast_topology, ipv4_fields, parse_pfc, pfc_frame, roce_frame

MS = 1_000_000  # ns


def _counter(sw, name: str, index: int) -> int:
    value = parse_counter(sw.cli(f"counter_read {name} {index}"))
    assert value is not None
    return value[1]


def _drain(sw, clock, port: int, limit: int = 1000) -> list[tuple[int, bytes]]:
    """Transmit everything queued on ``port``, advancing the clock; (time ns, frame)."""
    out = []
    for _ in range(limit):
        t = sw.transmit_ready(port)
        if t is None:
            break
        clock.now = max(clock.now, t)
        frame = sw.transmit(port)
        if frame is not None:
            out.append((clock.now, frame))
    return out


def test_cts_queueing_delay_stays_small_while_the_bulk_queue_is_deep(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, _, clock = make_switch(topo, "rtsw0")
    h0, h1 = topo.host("h0"), topo.host("h1")
    sw.cli(f"set_queue_rate 100 {h1.leaf_port}")  # one packet per 10 ms per queue
    bulk = Flow(h0.ip, h1.ip, 0xC000, 0x11)
    for psn in range(40):
        sw.receive(
            h0.leaf_port, roce_frame(bulk, h0.gateway_mac, h0.mac, dscp=vocab.DSCP_BULK, psn=psn)
        )
    clock.now = 5 * MS
    cts = Flow("10.0.1.1", h1.ip, 0xC100, 0x22)
    uplink = topo.switch("rtsw0").uplink_ports[0]
    sw.receive(uplink.number, roce_frame(cts, uplink.mac, "02:00:00:00:00:01", dscp=vocab.DSCP_CTS))
    sent = _drain(sw, clock, h1.leaf_port)
    assert len(sent) == 41
    by_qp = {}
    for t, frame in sent:
        by_qp.setdefault(ipv4_fields(frame)["qp"], []).append(t)
    (cts_departure,) = by_qp[0x22]
    assert cts_departure - 5 * MS <= 10 * MS  # at most one rate slot
    assert max(by_qp[0x11]) >= 390 * MS  # the 40th bulk packet waited 39 slots
    # the same packet marked as bulk would have waited behind the whole queue
    assert sum(1 for t in by_qp[0x11] if t > cts_departure) >= 38


def _incast(make_switch, pfc_on: bool, per_sender: int = 25) -> dict[str, int]:
    """8 hosts send to one at line rate each: an 8:1 incast on the leaf's port 1."""
    pfc_codec = pytest.importorskip("emulator.target.pfc")
    topo = resolve(incast_topology())
    cfg = FabricConfig(
        lb_mode="ecmp", pfc=PfcConfig(enabled=pfc_on, xoff=12, xon=4, quanta=1000), queue_depth=48
    )
    sw, _, clock = make_switch(topo, "rtsw0", cfg)
    sink = topo.host("h0")
    senders = [topo.host(f"h{i}") for i in range(1, 9)]
    interval = MS  # every sender at 1000 pps; the sink's queue drains at 1000 pps
    sw.cli(f"set_queue_rate 1000 {sink.leaf_port}")
    next_send = {h.leaf_port: 0 for h in senders}
    left = {h.leaf_port: per_sender for h in senders}
    paused_until = {h.leaf_port: 0 for h in senders}
    by_port = {h.leaf_port: h for h in senders}
    delivered = pause_frames = xon_frames = 0
    port_macs = {p.number: p.mac for p in topo.switch("rtsw0").ports}
    ports = [sink.leaf_port, *by_port]
    for _ in range(20_000):
        events = [max(next_send[p], paused_until[p]) for p in by_port if left[p]]
        events += [t for p in ports if (t := sw.transmit_ready(p)) is not None]
        if not events:
            break
        clock.now = max(clock.now, min(events))
        for p, host in by_port.items():
            if left[p] and next_send[p] <= clock.now and paused_until[p] <= clock.now:
                flow = Flow(host.ip, sink.ip, 0xC000 + p, 0x100 + p)
                psn = per_sender - left[p]
                sw.receive(p, roce_frame(flow, host.gateway_mac, host.mac, psn=psn))
                left[p] -= 1
                next_send[p] = clock.now + interval
        for p in ports:
            while (t := sw.transmit_ready(p)) is not None and t <= clock.now:
                frame = sw.transmit(p)
                if frame is None:
                    continue
                if p == sink.leaf_port:
                    delivered += 1
                    continue
                pfc = parse_pfc(frame)
                assert pfc is not None, f"unexpected frame to sender port {p}"
                assert len(frame) == 60
                assert frame[6:12] == bytes.fromhex(port_macs[p].replace(":", ""))
                cev, times = pfc
                assert cev == 1 << vocab.TC_BULK
                decoded = pfc_codec.decode_pfc(frame)  # what a neighbour's MAC sees
                assert decoded is not None and decoded.quanta[vocab.TC_BULK] == times[vocab.TC_BULK]
                pause_frames += 1
                quanta = times[vocab.TC_BULK]
                xon_frames += quanta == 0
                paused_until[p] = clock.now + quanta * 512 * 1000 // 10  # ns at 10 Mb/s
    pfc_tx = sum(_counter(sw, PFC_TX_COUNTER, port_prio_index(p, vocab.TC_BULK)) for p in by_port)
    return {
        "sent": 8 * per_sender - sum(left.values()),
        "delivered": delivered,
        "tail_dropped": sw.stats["tail_dropped"],
        "pause_frames": pause_frames,
        "xon_frames": xon_frames,
        "pfc_tx_counter": pfc_tx,
    }


def test_incast_with_pfc_pauses_senders_and_drops_nothing(make_switch) -> None:
    r = _incast(make_switch, pfc_on=True)
    assert r["sent"] == 200
    assert r["tail_dropped"] == 0
    assert r["delivered"] == 200
    assert r["pause_frames"] >= 8  # every sender was paused at least once
    assert r["xon_frames"] >= 1  # and some were released before their pause expired
    assert r["pfc_tx_counter"] == r["pause_frames"]


def test_incast_without_pfc_overflows_the_queue(make_switch) -> None:
    r = _incast(make_switch, pfc_on=False)
    assert r["sent"] == 200
    assert r["pause_frames"] == 0
    assert r["tail_dropped"] > 0
    assert r["delivered"] == 200 - r["tail_dropped"]


@pytest.mark.parametrize("threshold", [5, None])
def test_ecn_marks_only_above_the_threshold(make_switch, threshold: int | None) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    ecn = ((vocab.TC_BULK, threshold),) if threshold is not None else ()
    sw, _, clock = make_switch(topo, "rtsw0", FabricConfig(ecn_thresholds=ecn))
    h0, h1 = topo.host("h0"), topo.host("h1")
    sw.cli(f"set_queue_rate 100 {h1.leaf_port}")
    flow = Flow(h0.ip, h1.ip, 0xC000, 0x11)
    for psn in range(20):
        ecn_bits = vocab.ECN_NOT_ECT if psn == 15 else vocab.ECN_ECT0
        sw.receive(h0.leaf_port, roce_frame(flow, h0.gateway_mac, h0.mac, ecn=ecn_bits, psn=psn))
    sent = [ipv4_fields(f) for _, f in _drain(sw, clock, h1.leaf_port)]
    assert [f["psn"] for f in sent] == list(range(20))
    marked = [f["psn"] for f in sent if f["ecn"] == vocab.ECN_CE]
    if threshold is None:
        assert marked == []  # off by default (DCQCN off)
    else:
        # packet i found i packets queued; CE above the threshold, never on non-ECT
        assert marked == [i for i in range(threshold + 1, 20) if i != 15]
        assert sent[15]["ecn"] == vocab.ECN_NOT_ECT
        index = port_prio_index(h1.leaf_port, vocab.TC_BULK)
        assert _counter(sw, ECN_MARK_COUNTER, index) == len(marked)
    assert all(f["checksum_ok"] for f in sent)


def test_received_pfc_frames_are_counted_per_priority_and_dropped(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, _, _ = make_switch(topo, "rtsw0")
    port = topo.switch("rtsw0").uplink_ports[0].number
    assert sw.process(port, pfc_frame(0b1001000, {3: 700, 6: 20})) == []
    assert _counter(sw, PFC_RX_COUNTER, port_prio_index(port, 3)) == 1
    assert _counter(sw, PFC_RX_COUNTER, port_prio_index(port, 6)) == 1
    assert _counter(sw, PFC_RX_COUNTER, port_prio_index(port, 0)) == 0
    reply = sw.cli(f"register_read {PFC_RX_QUANTA} {port_prio_index(port, 3)}")
    assert reply.strip().endswith("= 700")


def test_ttl_expiry_and_non_ip_frames_are_dropped_and_counted(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, _, _ = make_switch(topo, "rtsw0")
    h0 = topo.host("h0")
    flow = Flow(h0.ip, "10.0.1.1", 0xC000, 1)
    assert sw.process(h0.leaf_port, roce_frame(flow, h0.gateway_mac, h0.mac, ttl=1)) == []
    arp = bytes.fromhex("ffffffffffff") + bytes.fromhex(h0.mac.replace(":", "")) + b"\x08\x06"
    assert sw.process(h0.leaf_port, arp + bytes(46)) == []
    assert _counter(sw, DROP_COUNTER, port_prio_index(h0.leaf_port, vocab.TC_BULK)) == 1
    assert _counter(sw, DROP_COUNTER, port_prio_index(h0.leaf_port, 0)) == 1


def test_bmv2_pfc_agent_reads_the_program_registers(make_switch) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    sw, _, _ = make_switch(topo, "rtsw0")
    uplink = topo.switch("rtsw0").uplink_ports[0]
    agent = PfcAgent(sw, {uplink.number: float(uplink.rate_bps)}, priorities=(vocab.TC_BULK,))
    assert agent.poll(0) == []
    sw.process(uplink.number, pfc_frame(1 << vocab.TC_BULK, {vocab.TC_BULK: 100}))
    assert agent.poll(1_000) == [f"set_queue_rate 1 {uplink.number} {vocab.TC_BULK}"]
    pause_ns = 100 * 512 * 10**9 // uplink.rate_bps
    assert agent.next_deadline() == 1_000 + pause_ns
    sw.process(uplink.number, pfc_frame(1 << vocab.TC_BULK, {}))  # XON
    assert agent.poll(2_000) == [f"set_queue_rate 0 {uplink.number} {vocab.TC_BULK}"]
