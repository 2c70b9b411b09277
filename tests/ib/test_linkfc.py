"""IB flow control packets between processes (emulator.ib.linkfc): codec and accounting."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

from emulator.errors import UserError
from emulator.ib.credits import blocks
from emulator.ib.framing import IbEndpoint, IbFraming, framing_from_dict
from emulator.ib.linkfc import (
    FCP_DST_MAC,
    KEEPALIVE_NS,
    REFRESH_NS,
    Fcp,
    HostLinkCredits,
    PortCredits,
    SwitchLinkCredits,
    decode_fcp,
    encode_fcp,
    is_fcp,
    wire_limit,
)
from emulator.target.flowcontrol import BLOCKED
from emulator.target.options import add_arguments, options_from_args
from emulator.target.tm import TrafficManager

MAC = bytes.fromhex("020000000001")
LUA = Path(__file__).resolve().parents[2] / "scripts" / "wireshark" / "ib_shim.lua"


@given(
    op=st.integers(0, 1), fctbs=st.integers(0, 4095), vl=st.integers(0, 15),
    fccl=st.integers(0, 4095),
)  # fmt: skip
def test_fcp_round_trips(op: int, fctbs: int, vl: int, fccl: int) -> None:
    frame = encode_fcp(MAC, Fcp(op, fctbs, vl, fccl))
    assert len(frame) == 60 and frame[:6] == FCP_DST_MAC and frame[12:14] == b"\x88\xb5"
    assert is_fcp(frame)
    assert decode_fcp(frame) == Fcp(op, fctbs, vl, fccl)


@given(st.integers(14, 17), st.integers(1, 255))
def test_a_corrupted_fcp_fails_its_lpcrc(pos: int, flip: int) -> None:
    frame = bytearray(encode_fcp(MAC, Fcp(0, 100, 0, 356)))
    frame[pos] ^= flip
    assert decode_fcp(bytes(frame)) is None


def test_data_frames_are_not_fcps() -> None:
    fr = IbFraming({"10.0.0.1": IbEndpoint("02:00:00:00:00:01", (1,)),
                    "10.0.0.2": IbEndpoint("02:00:00:00:00:02", (2,))})  # fmt: skip
    path = fr.make_path("02:00:00:00:00:01", "", "10.0.0.1", "10.0.0.2", 1000, 0, 0)
    data = fr.encode(path, bytes(12) + bytes(64))
    assert not is_fcp(data) and decode_fcp(data) is None


def _link(limit: int = 16) -> tuple[PortCredits, PortCredits]:
    return PortCredits(limit, MAC), PortCredits(limit, MAC)


def _exchange(a: PortCredits, b: PortCredits, now: int) -> None:
    """Both ends send whatever FCPs are due; each is delivered to the other end."""
    for fcp in a.due(now):
        b.on_fcp(fcp)
    for fcp in b.due(now):
        a.on_fcp(fcp)


def test_sender_stalls_until_the_receiver_frees_its_buffer() -> None:
    tx, rx = _link(limit=16)
    for _ in range(4):  # 4 packets of 4 blocks fill the 16-block buffer
        assert tx.fits(0, 4, now=0)
        tx.spend(0, 4)
        rx.received(0, 4)
    assert not tx.fits(0, 4, now=100)  # stalled from t=100
    _exchange(tx, rx, now=REFRESH_NS)  # nothing freed yet: the limit stays
    assert not tx.fits(0, 4, now=REFRESH_NS)
    rx.released(0, 4)  # a quarter of the buffer: an FCP goes at once
    _exchange(tx, rx, now=REFRESH_NS + 1)
    assert tx.fits(0, 4, now=REFRESH_NS + 500)
    stats = tx.stats(now=REFRESH_NS + 500)
    assert stats["stalls"] == 1 and stats["stalled_ns"] == REFRESH_NS + 400
    assert stats["max_used"] == 16 and stats["fcp_rx"] >= 1


def test_a_lost_data_frame_does_not_leak_credits() -> None:
    """The receiver takes the sender's FCTBS as blocks received (IBTA's ABR adjustment)."""
    tx, rx = _link(limit=16)
    tx.spend(0, 8)  # lost on the wire: rx never sees it
    tx.spend(0, 8)
    rx.received(0, 8)
    rx.released(0, 8)
    assert not tx.fits(0, 1, now=0)
    for t in (REFRESH_NS, 2 * REFRESH_NS, 3 * REFRESH_NS):
        _exchange(tx, rx, now=t)
    assert tx.fits(0, 16, now=3 * REFRESH_NS)


def test_keepalive_repeats_an_unchanged_state() -> None:
    tx, _rx = _link()
    tx.spend(0, 1)
    assert len(tx.due(REFRESH_NS)) == 1  # the FCTBS changed
    assert tx.due(2 * REFRESH_NS) == []
    assert tx.next_due() == REFRESH_NS + KEEPALIVE_NS
    assert len(tx.due(REFRESH_NS + KEEPALIVE_NS)) == 1


@given(st.lists(st.tuples(st.integers(1, 70), st.booleans()), min_size=1, max_size=400))
def test_counters_wrap_and_never_overrun_the_buffer(ops: list[tuple[int, bool]]) -> None:
    """Thousands of blocks (the 12-bit counters wrap): in flight + buffered <= the limit."""
    limit = 80
    tx, rx = _link(limit)
    queue: list[int] = []
    now = 0
    for n, release in ops * 8:
        now += REFRESH_NS
        if tx.fits(0, n, now):
            tx.spend(0, n)
            rx.received(0, n)
            queue.append(n)
        assert rx.vl(0).buffered <= limit
        if release and queue:
            rx.released(0, queue.pop(0))
        _exchange(tx, rx, now)
    while queue:
        rx.released(0, queue.pop(0))
    now += REFRESH_NS
    _exchange(tx, rx, now)
    assert tx.fits(0, limit, now)  # everything came back


def test_wire_limit_bounds() -> None:
    assert wire_limit(16384) == 256
    with pytest.raises(UserError, match="FCP credits"):
        wire_limit(256 * 1024)


def test_switch_scheme_blocks_a_queue_and_releases_on_dequeue() -> None:
    clock = [0]
    tm = TrafficManager(lambda: clock[0])
    credits = SwitchLinkCredits(tm, 4224, {1: MAC, 2: MAC}, lambda: clock[0])
    tm.add_flow_control(credits)
    tm.on_buffer_release = credits.on_release
    frame = b"\x02" * 12 + b"\x88\xb5" + bytes(2000)  # VL 0, 32 blocks
    limit = wire_limit(4224)
    for _ in range(limit // blocks(len(frame)) + 1):

        def enqueue(port: int, f: bytes) -> list[int]:
            return [2] if tm.enqueue(2, 0, f, len(f), ingress_port=port) else []

        credits.receive(1, frame, enqueue)
    sent = 0
    while tm.dequeue(2) is not None:
        sent += 1
    assert sent == limit // blocks(len(frame))  # the next one waits for credits
    assert credits.eligible_at(2, 0, 0) == BLOCKED
    assert credits.ports[1].vl(0).buffered == blocks(len(frame))  # one still queued
    [(_port, fcp)] = [x for x in credits.due(REFRESH_NS) if x[0] == 1]
    assert decode_fcp(fcp) == Fcp(0, 0, 0, (sent + 1) * blocks(len(frame)) + limit - 32)
    credits.on_control_frame(2, encode_fcp(MAC, Fcp(0, 0, 0, limit + 64)), 0)
    assert credits.eligible_at(2, 0, 0) == 0


def test_host_link_consumes_fcps_and_frees_at_once() -> None:
    host = HostLinkCredits(16384, MAC)
    data = b"\x02" * 12 + b"\x88\xb5" + bytes(1000)
    assert not host.on_frame(data)
    assert host.port.vl(0).buffered == 0 and host.port.vl(0).abr == blocks(len(data))
    assert host.on_frame(encode_fcp(MAC, Fcp(0, 0, 0, 10)))
    assert not host.try_send(data, now=5)  # limit 10 blocks < 16
    assert host.port.stats(now=25)["stalled_ns"] == 20


def test_framing_round_trips_through_json() -> None:
    fr = IbFraming({"10.0.0.1": IbEndpoint("02:00:00:00:00:01", (1, 2))}, data_vls=2)
    back = framing_from_dict(fr.to_dict())
    assert back.endpoints == fr.endpoints and back.data_vls == 2
    with pytest.raises(UserError, match="bad IB framing"):
        framing_from_dict({"kind": "ib", "endpoints": {"x": 3}})


def test_switch_option_excludes_pfc() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    ok = options_from_args(parser.parse_args(["p.json", "--", "--ib-credits", "16384"]))
    assert ok.ib_credits == 16384
    args = parser.parse_args(["p.json", "--", "--ib-credits", "16384", "--pfc-ports", "1"])
    with pytest.raises(UserError, match="exclude each other"):
        options_from_args(args)


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_dissects_fcps_and_data_in_one_capture(tmp_path: Path) -> None:
    """The Lua shim hands FCPs to Wireshark's InfiniBand link dissector, data to the LRH one."""
    fr = IbFraming({"10.0.0.1": IbEndpoint("02:00:00:00:00:01", (1,)),
                    "10.0.0.2": IbEndpoint("02:00:00:00:00:02", (2,))})  # fmt: skip
    path = fr.make_path("02:00:00:00:00:01", "", "10.0.0.1", "10.0.0.2", 1000, 0, 0)
    data = fr.encode(path, bytes(12) + bytes(64))
    pcap = tmp_path / "link.pcap"
    wrpcap(str(pcap), [Ether(encode_fcp(MAC, Fcp(0, 1234, 2, 3000))), Ether(data)])
    fields = ["infiniband_link.op", "infiniband_link.fctbs", "infiniband_link.vl",
              "infiniband_link.fccl", "infiniband.lrh.dlid"]  # fmt: skip
    cmd = ["tshark", "-X", f"lua_script:{LUA}", "-r", str(pcap), "-T", "fields", "-E",
           "separator=,"]  # fmt: skip
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.splitlines() == ["0,1234,2,3000,", ",,,,2"]


def test_mininet_refuses_a_buffer_fcps_cannot_count() -> None:
    from emulator.ib.credits import CreditConfig
    from emulator.plan.spec import RunPlan
    from emulator.runtime.mininet.runtime import MininetRuntime
    from emulator.topology import load_clos, resolve

    topo = resolve(load_clos("calib_4x4"))
    cfg = RunPlan(topo, {s.name: {} for s in topo.switches}, {s.name: () for s in topo.switches},
                  fabric="ib", credits=CreditConfig(256 * 1024))  # fmt: skip
    with pytest.raises(UserError, match="FCP credits"):
        MininetRuntime(cfg)


def test_a_down_port_drains_its_queue_and_comes_back_with_fresh_credits() -> None:
    """set_port_link: frames stuck behind a dead peer's credits leave (to die on the wire),
    freeing the ingress buffer they held; on link up the accounting starts afresh."""
    clock = [0]
    tm = TrafficManager(lambda: clock[0])
    credits = SwitchLinkCredits(tm, 4224, {1: MAC, 2: MAC}, lambda: clock[0])
    tm.add_flow_control(credits)
    tm.on_buffer_release = credits.on_release
    frame = b"\x02" * 12 + b"\x88\xb5" + bytes(2000)
    n = wire_limit(4224) // blocks(len(frame)) + 3
    for _ in range(n):
        credits.receive(1, frame, lambda p, f: [2] if tm.enqueue(2, 0, f, len(f), p) else [])
    while tm.dequeue(2) is not None:
        pass
    assert credits.eligible_at(2, 0, 0) == BLOCKED and tm.depth(2) == 3
    credits.set_link(2, up=False)
    assert credits.eligible_at(2, 0, 0) == 0
    spent = credits.ports[2].vl(0).fctbs
    while tm.dequeue(2) is not None:
        pass
    assert tm.depth(2) == 0 and credits.ports[1].vl(0).buffered == 0  # ingress freed
    assert credits.ports[2].vl(0).fctbs == spent  # nothing spent on the dead link
    credits.set_link(2, up=True)
    st_ = credits.ports[2].vl(0)
    assert (st_.fctbs, st_.fccl, st_.abr) == (0, st_.limit, 0) and st_.stalls >= 1
    tm.enqueue(2, 0, frame, len(frame), 1)
    assert credits.eligible_at(2, 0, 0) == 0
