"""FASTNIC: :class:`FastRnic` sends and accepts exactly what the base :class:`Rnic` does.

Both RNICs run the same transfer over the test wire under the same random losses, CE
marks, corruptions, reorderings, PFC pauses and malformed frames; every frame on the wire
(time, sender, bytes), every counter, every completion and the QPs' final state must be
equal.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.traffic.dcqcn import DcqcnConfig
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.qp_fast import FastQueuePair
from emulator.traffic.rnic import Rnic, RnicConfig
from emulator.traffic.rnic_fast import FastRnic, make_rnic
from emulator.vocab.pfc import build_pfc

from .helpers import DATA_OPS, opcode_of, pair, pause_lists

_QP_STATE = ("epsn", "msn", "next_psn", "resend", "rto_deadline", "retries", "error", "since_ack")


def _odd_frames(good: bytes) -> list[bytes]:
    """Frames the fast path must hand to the base: wrong MAC, IP options, short, bad
    UDP port, a length past the end, an unknown opcode, an unknown QP, a bad pad."""
    opts = good[:14] + b"\x46" + good[15:34] + b"\x00\x00\x00\x00" + good[34:]
    return [
        b"\x02\x00\x00\x00\x00\x77" + good[6:],
        opts,
        good[:50],
        good[:36] + b"\x12\xb8" + good[38:],
        good[:16] + b"\xff\xff" + good[18:],
        good[:42] + b"\x05" + good[43:],
        good[:47] + b"\x00\x0f\xff" + good[50:],
        good[:43] + b"\x30" + good[44:],
        b"\x00" * 20,
    ]


def _run(fast: bool, cfg: RnicConfig, num_qps: int, perturb: dict[str, Any]) -> Any:
    """A 100 KiB transfer a -> b under ``perturb``; everything observable afterwards."""
    seen = {"d": 0, "a": 0, "m": 0}

    def drop(nic: Rnic, frame: bytes) -> bool:
        code = opcode_of(frame)
        if nic.name == "a" and code in DATA_OPS:
            seen["d"] += 1
            return seen["d"] - 1 in perturb["drops"]
        if nic.name == "b" and code == 0x11:
            seen["a"] += 1
            return seen["a"] - 1 in perturb["ack_drops"]
        return False

    def mangle(nic: Rnic, frame: bytes) -> bytes:
        if nic.name != "a" or opcode_of(frame) not in DATA_OPS:
            return frame
        seen["m"] += 1
        i = seen["m"] - 1
        if i in perturb["ce"]:
            frame = frame[:15] + bytes((frame[15] | 3,)) + frame[16:]
        if i in perturb["corrupt"]:
            frame = frame[:-9] + bytes((frame[-9] ^ 0x5A,)) + frame[-8:]
        return frame

    sim, wire, a, b, ca, cb = pair(cfg, num_qps=num_qps, drop=drop, fast=fast)
    wire.mangle = mangle
    nics = {"a": a, "b": b}
    for who, t, tc, q in perturb["pauses"]:
        sim.deliver(nics[who], build_pfc("02:00:00:00:00:99", {tc: q}), t)
    n = 100 * 1024 + 13
    ca.send(n, 1, 0)
    cb.recv(n, 1, 0)
    sim.kick_all()
    sim.run(perturb["odd_at"])
    good = next((f for _, w, f in wire.log if w == "a" and opcode_of(f) in DATA_OPS), None)
    for frame in _odd_frames(good) if good is not None else []:
        sim.deliver(b, frame, sim.now)
    ack = next((f for _, w, f in wire.log if w == "b" and opcode_of(f) == 0x11), None)
    for frame in _odd_frames(ack) if ack is not None else []:
        sim.deliver(a, frame, sim.now)
    sim.run(10**10)
    qps = [[getattr(qp, k) for k in _QP_STATE] for nic in (a, b) for qp in nic.qps.values()]
    return (
        wire.log,
        a.counters.as_dict(),
        b.counters.as_dict(),
        a.completions,
        b.completions,
        qps,
        a.next_wakeup(),
        b.next_wakeup(),
    )


@settings(max_examples=40, deadline=None)
@given(
    num_qps=st.integers(1, 4),
    admission=st.booleans(),
    mtu=st.sampled_from([256, 1024, 4096]),
    ack_every=st.integers(1, 9),
    dcqcn=st.booleans(),
    jitter=st.sampled_from([0, 3000]),
    ooo=st.sampled_from([0, 8]),
    verify=st.booleans(),
    perturb=st.fixed_dictionaries(
        {
            "drops": st.sets(st.integers(0, 150), max_size=6),
            "ack_drops": st.sets(st.integers(0, 30), max_size=3),
            "ce": st.sets(st.integers(0, 150), max_size=20),
            "corrupt": st.sets(st.integers(0, 150), max_size=3),
            "pauses": pause_lists(200_000, 2000, 4),
            "odd_at": st.integers(0, 300_000),
        }
    ),
)
def test_fast_rnic_matches_the_base(
    num_qps: int,
    admission: bool,
    mtu: int,
    ack_every: int,
    dcqcn: bool,
    jitter: int,
    ooo: int,
    verify: bool,
    perturb: dict[str, Any],
) -> None:
    """Property: same frames at the same times, same counters, completions and QP state."""
    cfg = RnicConfig(
        admission=admission,
        mtu=mtu,
        ack_every=ack_every,
        chunk_bytes=16 * 1024,
        rto_ns=150_000,
        dcqcn=DcqcnConfig() if dcqcn else None,
        tx_jitter_ns=jitter,
        ooo_window=ooo,
        verify_icrc=verify,
    )
    base = _run(False, cfg, num_qps, perturb)
    fast = _run(True, cfg, num_qps, perturb)
    assert fast[1:] == base[1:]
    assert fast[0] == base[0]
    assert base[2]["rx_payload_bytes"] > 0  # the transfer moved data (without ICRC checks
    # the malformed frames may be taken for data, and then it never completes: both alike)


def test_make_rnic_picks_the_fast_rnic_for_rocev2_only(monkeypatch: Any) -> None:
    """FASTNIC on: a FastRnic (with fast QPs) for RoCEv2; off, or another framing (even a
    RoCEv2 subclass): the base."""
    args = ("02:00:00:00:00:01", "10.0.0.1", "02:00:00:00:00:02")
    monkeypatch.setenv("FABEMU_FASTNIC", "1")
    nic = make_rnic(*args)
    assert type(nic) is FastRnic
    assert type(nic.create_qp(5, 6, "10.0.0.2", 26, 3, 0, 0)) is FastQueuePair
    assert type(make_rnic(*args, framing=RoceV2Framing())) is FastRnic

    class Other(RoceV2Framing):
        pass

    assert type(make_rnic(*args, framing=Other())) is Rnic  # may read other bytes
    monkeypatch.setenv("FABEMU_FASTNIC", "0")
    assert type(make_rnic(*args)) is Rnic


def test_a_full_icrc_state_table_is_emptied_and_refilled(monkeypatch: Any) -> None:
    """With room for one ICRC state (CE marks and ACKs vary the headers) FastRnic still
    checks every ICRC as the base does."""
    from emulator.traffic import rnic_fast

    monkeypatch.setattr(rnic_fast, "MAX_ICRC_STATES", 1)
    cfg = RnicConfig(admission=True, chunk_bytes=16 * 1024, dcqcn=DcqcnConfig())
    perturb = {
        "drops": {3},
        "ack_drops": set(),
        "ce": set(range(0, 100, 3)),
        "corrupt": {7},
        "pauses": [],
        "odd_at": 10**9,
    }
    base = _run(False, cfg, 2, perturb)
    fast = _run(True, cfg, 2, perturb)
    assert fast == base
    assert base[2]["icrc_errors"] >= 1 and base[2]["cnps_sent"] > 0
