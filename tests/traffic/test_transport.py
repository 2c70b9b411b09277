"""RC transport over a virtual wire: exact delivery, go-back-N recovery, timeouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.traffic.qp import psn_diff
from emulator.traffic.rnic import RnicConfig

from .helpers import DATA_OPS, opcode_of, pair, payload_len


@pytest.mark.parametrize(("num_qps", "admission"), [(1, False), (4, False), (4, True), (16, True)])
def test_lossless_wire_delivers_exact_bytes(num_qps: int, admission: bool) -> None:
    cfg = RnicConfig(admission=admission, chunk_bytes=16 * 1024, mtu=1024)
    sim, wire, a, b, ca, cb = pair(cfg, num_qps=num_qps)
    sizes = [1, 1000, 1024, 1025, 50_000, 200_000, 3]
    for tag, n in enumerate(sizes):
        ca.send(n, tag, 0)
        cb.recv(n, tag, 0)
    sim.kick_all()
    sim.run(10**10)
    sends = {c.tag: c.nbytes for c in a.completions}
    recvs = {c.tag: c.nbytes for c in b.completions}
    assert sends == recvs == dict(enumerate(sizes))
    data = [f for _, who, f in wire.log if who == "a" and opcode_of(f) in DATA_OPS]
    assert sum(payload_len(f) for f in data) == sum(sizes)
    assert a.counters.retransmitted_pkts == b.counters.naks_sent == a.counters.timeouts == 0
    # every data QP carried traffic (round robin over QPs)
    used = {f[47:50] for f in data}
    assert len(used) == num_qps
    # b accepted exactly the data payload (plus CTS payloads it sent counted on a)
    assert b.counters.rx_payload_bytes == sum(sizes)


def test_psn_arithmetic_wraps() -> None:
    assert psn_diff(0, 0xFFFFFF) == 1
    assert psn_diff(0xFFFFFF, 0) == -1
    assert psn_diff(5, 3) == 2


def test_psn_wrap_during_transfer() -> None:
    cfg = RnicConfig(admission=False)
    sim, _wire, _a, b, ca, cb = pair(cfg, num_qps=1)
    qa, qb = ca.data[0], cb.data[0]
    qa.next_psn = qb.epsn = 0xFFFFF0  # 16 packets before the 24-bit wrap
    ca.send(64 * 1024, 1, 0)
    cb.recv(64 * 1024, 1, 0)
    sim.kick_all()
    sim.run(10**9)
    assert [c.kind for c in b.completions] == ["recv"]
    assert qa.next_psn == (0xFFFFF0 + 64) & 0xFFFFFF == qb.epsn


def _drop_data(indices: set[int], src: str = "a"):
    """Drop the data frames from ``src`` whose running index is in ``indices``."""
    seen = {"n": 0, "dropped": []}

    def rule(nic, frame: bytes) -> bool:
        if nic.name != src or opcode_of(frame) not in DATA_OPS:
            return False
        i = seen["n"]
        seen["n"] += 1
        if i in indices:
            seen["dropped"].append(frame)
            return True
        return False

    return rule, seen


def test_go_back_n_recovers_from_losses() -> None:
    cfg = RnicConfig(admission=False, chunk_bytes=64 * 1024)
    rule, _seen = _drop_data({10, 11, 50, 300})
    sim, wire, a, b, ca, cb = pair(cfg, num_qps=2, drop=rule)
    n = 512 * 1024
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert [c.kind for c in a.completions] == ["send"]
    assert [(c.kind, c.nbytes) for c in b.completions] == [("recv", n)]
    ac, bc = a.counters, b.counters
    assert wire.dropped == 4
    assert bc.rx_payload_bytes == n  # delivered exactly once, in order
    assert bc.naks_sent == ac.naks_received >= 1
    assert ac.retransmitted_pkts >= 4
    # conservation: every data frame a sent was dropped, accepted, or discarded by b
    accepted = n // 1024
    assert ac.tx_data_pkts == wire.dropped + accepted + bc.out_of_sequence_dropped + (
        bc.duplicates_received
    )
    assert ac.tx_data_pkts == accepted + ac.retransmitted_pkts
    assert ac.timeouts == 0


def test_timeout_recovers_a_lost_tail_packet() -> None:
    cfg = RnicConfig(admission=False, rto_ns=200_000)
    rule, _seen = _drop_data({7})  # the last packet of an 8-packet message: nothing follows
    sim, _wire, a, b, ca, cb = pair(cfg, num_qps=1, drop=rule)
    ca.send(8 * 1024, 1, 0)
    cb.recv(8 * 1024, 1, 0)
    sim.kick_all()
    sim.run(10**9)
    assert a.counters.timeouts == 1
    # go back N from the oldest unacknowledged packet until the duplicate's re-ACK arrives
    assert 1 <= a.counters.retransmitted_pkts <= 8
    assert a.counters.tx_data_pkts == 8 + a.counters.retransmitted_pkts
    assert b.counters.rx_payload_bytes == 8 * 1024
    assert b.counters.naks_sent == 0
    assert [c.kind for c in b.completions] == ["recv"]
    assert b.completions[0].done_ns >= 200_000


def test_lost_ack_is_recovered_by_timeout_and_duplicate_reack() -> None:
    acks = {"n": 0}

    def drop_acks(nic, frame: bytes) -> bool:
        if nic.name == "b" and opcode_of(frame) == 0x11:
            acks["n"] += 1
            return True  # lose every ACK until the retransmission
        return False

    cfg = RnicConfig(admission=False, rto_ns=100_000)
    sim, wire, a, b, ca, cb = pair(cfg, drop=drop_acks)
    ca.send(4096, 1, 0)
    cb.recv(4096, 1, 0)
    sim.kick_all()
    sim.run(150_000)
    assert not a.completions and b.completions  # data arrived, no ACK yet
    wire.drop = None
    sim.run(10**9)
    assert [c.kind for c in a.completions] == ["send"]
    # every retransmission reached b as a duplicate, and b re-acknowledged
    assert b.counters.duplicates_received == a.counters.retransmitted_pkts >= 4
    assert a.counters.timeouts >= 1
    assert acks["n"] >= 1
    assert b.counters.rx_payload_bytes == 4096


@settings(max_examples=40, deadline=None)
@given(
    drops=st.sets(st.integers(0, 200), max_size=12),
    ack_drops=st.sets(st.integers(0, 40), max_size=4),
    num_qps=st.integers(1, 3),
)
def test_any_loss_pattern_is_recovered_exactly(drops, ack_drops, num_qps) -> None:
    """Property: whatever data/ACK frames are lost, every byte arrives exactly once."""
    seen = {"d": 0, "a": 0}

    def rule(nic, frame: bytes) -> bool:
        code = opcode_of(frame)
        if nic.name == "a" and code in DATA_OPS:
            seen["d"] += 1
            return seen["d"] - 1 in drops
        if nic.name == "b" and code == 0x11:
            seen["a"] += 1
            return seen["a"] - 1 in ack_drops
        return False

    cfg = RnicConfig(admission=False, chunk_bytes=32 * 1024, rto_ns=100_000)
    sim, _wire, a, b, ca, cb = pair(cfg, num_qps=num_qps, drop=rule)
    n = 150 * 1024 + 17
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(10**10)
    assert [c.kind for c in a.completions] == ["send"]
    assert [(c.kind, c.nbytes) for c in b.completions] == [("recv", n)]
    ac, bc = a.counters, b.counters
    assert bc.rx_payload_bytes == n
    data_dropped = sum(1 for i in drops if i < seen["d"])
    accepted = sum(-(-min(32 * 1024, n - off) // 1024) for off in range(0, n, 32 * 1024))
    assert ac.tx_data_pkts == accepted + ac.retransmitted_pkts
    assert ac.tx_data_pkts == data_dropped + accepted + bc.out_of_sequence_dropped + (
        bc.duplicates_received
    )
    assert ac.naks_received <= bc.naks_sent


def test_data_before_recv_without_admission_completes_at_post() -> None:
    sim, _wire, _a, b, ca, cb = pair(RnicConfig(admission=False))
    ca.send(5000, 3, 0)
    sim.kick_all()
    sim.run(1_000_000)
    assert not b.completions  # data arrived but nobody asked for it yet
    cb.recv(5000, 3, 1_000_000)
    assert [(c.kind, c.nbytes, c.done_ns) for c in b.completions] == [("recv", 5000, 1_000_000)]


def test_stale_and_bogus_acks_are_ignored() -> None:
    from emulator.traffic import opcodes as op
    from emulator.traffic.roce import decode_transport, encode_transport

    _sim, _wire, a, _b, ca, _cb = pair(RnicConfig(admission=False, ack_every=1000))
    qa = ca.data[0]
    qa.next_psn = 100
    ca.send(4 * 1024, 1, 0)
    for _ in range(4):  # transmit the 4 packets (PSN 100..103) but deliver nothing
        assert a.poll(10_000 * (_ + 1)) is not None

    def ack(psn: int, syndrome: int) -> None:
        t = decode_transport(encode_transport(op.RC_ACK, qa.qpn, psn, aeth=(syndrome, 0)))
        qa.on_ack(t, 100_000)

    ack(200, op.AETH_ACK)  # acknowledges PSNs never sent
    assert len(qa.inflight) == 4 and a.counters.bad_acks == 1
    ack(101, op.AETH_ACK)  # 100, 101 done
    assert [e[0] for e in qa.inflight] == [102, 103] and qa.resend == 2
    ack(101, op.AETH_NAK_SEQ_ERR)  # stale NAK: 101 was already acknowledged
    assert qa.resend == 2 and a.counters.bad_acks == 2
    ack(103, op.AETH_NAK_SEQ_ERR)  # 102 done, go back to 103
    assert [e[0] for e in qa.inflight] == [103] and qa.resend == 0
