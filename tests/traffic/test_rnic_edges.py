"""RNIC edge cases: pacing, ICRC errors, bad configuration, random PFC storms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.vocab.pfc import build_pfc

from .helpers import DATA_OPS, opcode_of, pair, pause_lists


@pytest.mark.parametrize("num_qps", [1, 4])
def test_per_qp_pacing_limits_each_qp(num_qps: int) -> None:
    rate = 1e9
    cfg = RnicConfig(admission=False, qp_rate_bps=rate, chunk_bytes=256 * 1024)
    sim, _wire, _a, b, ca, cb = pair(cfg, num_qps=num_qps)
    n = 1 << 20
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**11)
    t = b.completions[0].done_ns
    goodput = n * 8e9 / t
    # each QP's frames (payload + ~106 B of headers/IFG) are paced at 1 Gb/s
    assert 0.85 * rate * num_qps < goodput < rate * num_qps


def test_corrupted_frame_fails_icrc_and_is_recovered() -> None:
    hit = {"n": 0}

    def corrupt(nic, frame: bytes) -> bytes:
        if nic.name == "a" and opcode_of(frame) in DATA_OPS:
            hit["n"] += 1
            if hit["n"] == 5:
                return frame[:-20] + bytes([frame[-20] ^ 0xFF]) + frame[-19:]
        return frame

    sim, wire, a, b, ca, cb = pair(RnicConfig(admission=False))
    wire.mangle = corrupt
    ca.send(64 * 1024, 1, 0)
    cb.recv(64 * 1024, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert b.counters.icrc_errors == 1
    assert b.counters.rx_payload_bytes == 64 * 1024
    assert a.counters.retransmitted_pkts >= 1 and b.counters.naks_sent == 1


def test_bad_configuration_is_a_user_error() -> None:
    with pytest.raises(UserError, match="path MTU"):
        RnicConfig(mtu=1500)
    with pytest.raises(UserError, match="positive"):
        RnicConfig(cts_window=0)
    with pytest.raises(UserError, match="bad MAC"):
        Rnic("02:00:00:00:00", "10.0.0.1", "02:00:00:00:00:02")
    with pytest.raises(UserError, match="bad IPv4"):
        _sim, _w, a, _b, _ca, _cb = pair(RnicConfig())
        a.create_qp(5, 6, "10.0.0.300", 26, 3, 0, 0)


def test_frames_for_others_and_unknown_qps_are_counted() -> None:
    sim, wire, _a, b, ca, cb = pair(RnicConfig(admission=False))
    ca.send(2048, 1, 0)
    cb.recv(2048, 1, 0)
    sim.kick_all()
    sim.run(10**9)
    frame = next(f for _, w, f in wire.log if w == "a" and opcode_of(f) in DATA_OPS)
    b.on_frame(b"\x02\x00\x00\x00\x00\x77" + frame[6:], 10**9)  # another MAC
    b.on_frame(frame[:47] + b"\x00\x0f\xff" + frame[50:], 10**9)  # unknown QPN (ICRC too)
    b.on_frame(b"\x00" * 20, 10**9)
    assert b.counters.not_for_us == 2
    assert b.counters.icrc_errors == 1  # the QPN rewrite broke the ICRC first


@settings(max_examples=25, deadline=None)
@given(
    pauses=pause_lists(400_000, 3000, 8),
    num_qps=st.integers(1, 4),
)
def test_random_pfc_storms_never_lose_or_stall(pauses, num_qps) -> None:
    cfg = RnicConfig(chunk_bytes=16 * 1024, cts_window=2, rto_ns=2_000_000)
    sim, _wire, a, b, ca, cb = pair(cfg, num_qps=num_qps)
    nics = {"a": a, "b": b}
    for who, t, tc, q in pauses:
        sim.deliver(nics[who], build_pfc("02:00:00:00:00:99", {tc: q}), t)
    n = 200_000
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert [(c.kind, c.nbytes) for c in b.completions] == [("recv", n)]
    assert [c.kind for c in a.completions] == ["send"]
    assert a.counters.retransmitted_pkts == 0  # pauses delay, they never drop


def test_default_rto_scales_with_slow_links() -> None:
    assert RnicConfig(link_bps=100e9).rto == 1_000_000  # the 1 ms floor
    assert 3_600_000 < RnicConfig(link_bps=10e9).rto < 3_800_000
    slow = RnicConfig(link_bps=10e6)
    assert 3_600_000_000 < slow.rto < 3_800_000_000  # 4096 MTU frames at 10 Mb/s
    assert RnicConfig(link_bps=10e6, rto_ns=7).rto == 7
    with pytest.raises(UserError):
        RnicConfig(rto_ns=0)


def test_consecutive_timeouts_back_off_and_progress_resets() -> None:
    drops = {"on": True}

    def rule(nic, frame: bytes) -> bool:
        return drops["on"] and nic.name == "a" and opcode_of(frame) in DATA_OPS

    cfg = RnicConfig(admission=False, rto_ns=100_000)
    sim, _wire, a, b, ca, cb = pair(cfg, drop=rule)
    ca.send(1024, 1, 0)
    cb.recv(1024, 1, 0)
    sim.kick_all()
    sim.run(1_400_000)  # timeouts at 0.1, 0.3, 0.7 ms (next at 1.5 ms): doubling
    qp = ca.data[0]
    assert a.counters.timeouts == 3 and qp.rto_backoff == 3
    drops["on"] = False
    sim.run(10**9)
    assert [c.kind for c in b.completions] == ["recv"]
    assert qp.rto_backoff == 0 and qp.rto_deadline is None


def test_counter_scalars_fit_the_run_result_schema() -> None:
    from emulator.traffic.counters import RnicCounters, scalar_counters

    c = RnicCounters(tx_pkts=3, cts_latency_ns=[5, 6])
    s = c.scalars()
    assert s["tx_pkts"] == 3.0 and "cts_latency_ns" not in s
    assert scalar_counters(c.as_dict()) == s
    results = pytest.importorskip("emulator.measure.results")
    meta = results.RunMeta(scenario="t", runtime="virtual", target="builtin")
    results.RunResult(meta=meta, hosts={"h0": s}, cts_latency_ns=c.cts_latency_ns)
