"""Optional DCQCN: ECN-CE marked data makes the receiver send CNPs; the sender slows down."""

from __future__ import annotations

import pytest

from emulator.traffic import opcodes as op
from emulator.traffic.dcqcn import DcqcnConfig, DcqcnRate
from emulator.traffic.rnic import RnicConfig
from emulator.vocab import DSCP_CNP

from .helpers import DATA_OPS, opcode_of, pair


def test_rate_cut_and_recovery() -> None:
    r = DcqcnRate(DcqcnConfig(), 10e9)
    r.on_cnp(0)
    assert r.rate(0) == pytest.approx(5e9)  # alpha starts at 1: halve
    r.on_cnp(1000)
    assert r.rate(1000) < 5e9
    low = r.rate(1000)
    assert low < r.rate(10 * 55_000) <= 10e9  # fast recovery towards the target
    assert r.rate(10**9) == pytest.approx(10e9)  # back to line rate eventually


def test_dcqcn_off_by_default_and_ecn_not_set() -> None:
    sim, wire, a, b, ca, cb = pair(RnicConfig(admission=False))
    ca.send(10_000, 1, 0)
    cb.recv(10_000, 1, 0)
    sim.kick_all()
    sim.run(10**9)
    assert all(f[15] & 3 == 0 for _, _, f in wire.log)  # Not-ECT
    assert a.counters.cnps_received == b.counters.cnps_sent == 0


def test_ce_marks_trigger_cnps_and_slow_the_sender() -> None:
    def mark_ce(nic, frame: bytes) -> bytes:
        if nic.name == "a" and opcode_of(frame) in DATA_OPS:
            assert frame[15] & 3 == 2  # ECT(0) when DCQCN is on
            return frame[:15] + bytes((frame[15] | 3,)) + frame[16:]
        return frame

    cfg = RnicConfig(admission=False, dcqcn=DcqcnConfig())
    sim, wire, a, b, ca, cb = pair(cfg)
    wire.mangle = mark_ce
    n = 2_000_000
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert [c.kind for c in b.completions] == ["recv"]
    cnps = [f for t, w, f in wire.log if w == "b" and opcode_of(f) == op.CNP]
    assert cnps and b.counters.cnps_sent == len(cnps) == a.counters.cnps_received
    assert all(f[15] >> 2 == DSCP_CNP for f in cnps)
    assert all(f[42 + 4] & 0x40 for f in cnps)  # BECN set
    # without marking the same transfer takes ~1.7 ms at 10 Gb/s; DCQCN slows it down
    assert b.completions[0].done_ns > 3_000_000
    assert ca.data[0].dcqcn is not None and ca.data[0].dcqcn.cnps == len(cnps)
