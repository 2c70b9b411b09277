"""PFC pause honouring and NCCL-style CTS admission."""

from __future__ import annotations

from emulator.traffic import opcodes as op
from emulator.traffic.rnic import RnicConfig
from emulator.vocab import TC_BULK, TC_CTS
from emulator.vocab.pfc import build_pause, build_pfc, quanta_to_ns

from .helpers import DATA_OPS, opcode_of, pair, payload_len

SWITCH_MAC = "02:00:00:00:00:99"


def _data_times(wire, who: str = "a") -> list[int]:
    return [t for t, w, f in wire.log if w == who and opcode_of(f) in DATA_OPS]


def test_pfc_pause_stops_sender_for_quanta_time() -> None:
    cfg = RnicConfig(admission=False, link_bps=10e9)
    sim, wire, a, b, ca, cb = pair(cfg, num_qps=2)
    ca.send(2_000_000, 1, 0)
    cb.recv(2_000_000, 1, 0)
    sim.kick_all()
    t_pause, quanta = 100_000, 2000
    pause_ns = quanta_to_ns(quanta, 10e9)  # 2000 * 512 bits at 10 Gb/s = 102.4 us
    assert pause_ns == 102_400
    sim.deliver(a, build_pfc(SWITCH_MAC, {TC_BULK: quanta}), t_pause)
    sim.run(10**10)
    times = _data_times(wire)
    assert not [t for t in times if t_pause < t < t_pause + pause_ns]
    after = min(t for t in times if t > t_pause)
    assert t_pause + pause_ns <= after <= t_pause + pause_ns + 2_000  # resumes on time
    assert a.counters.pause_frames == a.counters.pauses_honoured == 1
    assert [c.kind for c in b.completions] == ["recv"]


def test_pfc_resume_xon_and_other_priorities() -> None:
    cfg = RnicConfig(admission=False)
    sim, wire, a, _b, ca, cb = pair(cfg)
    ca.send(1_000_000, 1, 0)
    cb.recv(1_000_000, 1, 0)
    sim.kick_all()
    sim.deliver(a, build_pfc(SWITCH_MAC, {TC_BULK: 0xFFFF}), 50_000)  # ~3.4 ms at 10G
    sim.deliver(a, build_pfc(SWITCH_MAC, {TC_BULK: 0}), 80_000)  # XON after 30 us
    sim.deliver(a, build_pfc(SWITCH_MAC, {1: 0xFFFF}), 90_000)  # a priority a does not use
    sim.run(10**10)
    times = _data_times(wire)
    assert not [t for t in times if 50_000 < t < 80_000]
    assert min(t for t in times if t > 50_000) <= 82_000
    assert a.counters.pause_frames == 3
    assert a.counters.pauses_honoured == 1  # the XON and the unused priority do not count


def test_802_3x_pause_pauses_everything() -> None:
    cfg = RnicConfig(admission=False)
    sim, wire, a, _b, ca, cb = pair(cfg)
    ca.send(500_000, 1, 0)
    cb.recv(500_000, 1, 0)
    sim.kick_all()
    sim.deliver(a, build_pause(SWITCH_MAC, 1000), 20_000)
    sim.run(10**10)
    stop = 20_000 + quanta_to_ns(1000, cfg.link_bps)
    assert not [t for t, w, _ in wire.log if w == "a" and 20_000 < t < stop]


def test_bulk_pause_does_not_stop_cts() -> None:
    """The CTS class (TC 6) keeps flowing while bulk data (TC 3) is paused."""
    cfg = RnicConfig(admission=True, chunk_bytes=4096, cts_window=2)
    sim, wire, _a, b, _ca, cb = pair(cfg, num_qps=1)
    sim.deliver(b, build_pfc(SWITCH_MAC, {TC_BULK: 0xFFFF}), 0)  # b's data-ACKs paused
    sim.run(1)
    cb.recv(8192, 5, 10)
    sim.kick_all()
    sim.run(20_000)
    b_frames = [(t, f) for t, w, f in wire.log if w == "b"]
    assert b_frames and all(opcode_of(f) == op.RC_SEND_ONLY for _, f in b_frames)  # CTS only
    assert b.paused_until(TC_BULK) > 20_000 and b.paused_until(TC_CTS) <= 20_000


def test_no_data_before_cts_and_never_beyond_grants() -> None:
    cfg = RnicConfig(admission=True, chunk_bytes=8192, cts_window=2)
    sim, wire, a, b, ca, cb = pair(cfg, num_qps=4, delay_ns=2000)
    n = 100_000
    ca.send(n, 9, 0)  # the sender is ready at t=0 ...
    sim.kick_all()
    sim.run(50_000)
    assert not _data_times(wire)  # ... but nothing moves without a CTS
    cb.recv(n, 9, 50_000)
    sim.kick_all()
    sim.run(10**10)
    cts = sorted(
        (t + 2000, int.from_bytes(f[42 + 12 + 8 : 42 + 12 + 12], "big"))
        for t, w, f in wire.log
        if w == "b" and opcode_of(f) == op.RC_SEND_ONLY
    )
    assert sum(n_ for _, n_ in cts) == n
    assert len(cts) == -(-n // 8192)
    sent = 0
    for t, w, f in wire.log:
        if w == "a" and opcode_of(f) in DATA_OPS:
            sent += payload_len(f)
            granted = sum(n_ for ta, n_ in cts if ta <= t)
            assert sent <= granted
    assert sent == n
    assert _data_times(wire)[0] >= 50_000 + 2000
    lat = a.counters.cts_latency_ns
    assert len(lat) == a.counters.cts_received == b.counters.cts_sent == len(cts)
    assert min(lat) >= 2000  # at least the wire delay
    assert [c.kind for c in b.completions] == ["recv"]
    assert [c.kind for c in a.completions] == ["send"]
