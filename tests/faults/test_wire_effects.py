"""Corruption fails the receiver's ICRC (never the headers switches route on); loss is
seeded; the PFC watchdog declares a storm after an unbroken pause and then ignores pauses."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.impair import HEADERS, Impairment, flip_bit
from emulator.target.pfc import PfcFlowControl
from emulator.traffic import opcodes as op
from emulator.traffic.framing import RoceV2Framing
from emulator.traffic.roce import encode_transport
from emulator.vocab.pfc import encode_pfc, quanta_to_ns

FRAMING = RoceV2Framing()
PATH = FRAMING.make_path(
    "02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.1.1", 49152, 26, 1
)


def _frame(payload_len: int) -> bytes:
    code = op.RC_RDMA_WRITE_ONLY if payload_len else op.RC_ACK
    if payload_len:
        t = encode_transport(code, 0x11, 5, bytes(payload_len), reth=(0, 0, payload_len))
    else:
        t = encode_transport(code, 0x11, 5, aeth=(op.AETH_ACK, 1))
    return FRAMING.encode(PATH, t)


@settings(max_examples=200, deadline=None)
@given(payload=st.sampled_from([0, 1, 64, 1024]), seed=st.integers(0, 2**32))
def test_a_flipped_bit_fails_icrc_and_keeps_the_headers(payload: int, seed: int) -> None:
    frame = _frame(payload)
    bad = flip_bit(frame, random.Random(seed))
    assert len(bad) == len(frame)
    diff = [i for i in range(len(frame)) if frame[i] != bad[i]]
    assert len(diff) == 1 and bin(frame[diff[0]] ^ bad[diff[0]]).count("1") == 1
    assert bad[:HEADERS] == frame[:HEADERS] or diff[0] >= len(frame) - 4
    assert FRAMING.decode(frame, verify_icrc=True).icrc_ok is True  # type: ignore[union-attr]
    assert FRAMING.decode(bad, verify_icrc=True).icrc_ok is False  # type: ignore[union-attr]


def test_loss_is_seeded_and_near_its_probability() -> None:
    def lost(seed: int) -> int:
        imp = Impairment("loss", 0.1, random.Random(seed), fault=0)
        return sum(imp(b"x" * 80) is None for _ in range(5000))

    assert lost(7) == lost(7)
    assert 400 < lost(7) < 600  # 500 expected, sd ~21


SPEED = 10e6
PAUSE = encode_pfc("02:00:00:00:00:09", 1 << 3, [0, 0, 0, 0xFFFF, 0, 0, 0, 0])


def test_watchdog_declares_a_storm_and_ignores_pauses_until_they_stop() -> None:
    wd = 200_000_000
    fc = PfcFlowControl(SPEED)
    fc.set_enabled(1, True)
    fc.set_watchdog(wd)
    pause_ns = quanta_to_ns(0xFFFF, SPEED)
    assert pause_ns > wd  # one pause would outlast the watchdog
    fc.on_control_frame(1, PAUSE, 0)
    assert fc.eligible_at(1, 3, 1000) == wd  # wake up when the watchdog may fire
    for t in range(0, wd, 10_000_000):  # the storm keeps re-pausing
        fc.on_control_frame(1, PAUSE, t)
    assert fc.eligible_at(1, 3, wd) == wd  # storm: the queue sends (and the stuck peer loses it)
    fc.on_control_frame(1, PAUSE, wd + 1_000_000)
    assert fc.eligible_at(1, 3, wd + 2_000_000) == wd + 2_000_000  # ignored in the storm
    assert fc.storms(1, 3) == (1, 1)
    later = wd + 1_000_000 + wd  # no pause for a watchdog period: the storm is over
    fc.on_control_frame(1, PAUSE, later)
    assert fc.eligible_at(1, 3, later + 1) > later + 1


def test_without_watchdog_a_pause_holds_for_its_quanta() -> None:
    fc = PfcFlowControl(SPEED)
    fc.set_enabled(1, True)
    fc.on_control_frame(1, PAUSE, 0)
    assert fc.eligible_at(1, 3, 300_000_000) == quanta_to_ns(0xFFFF, SPEED)
    assert fc.storms(1, 3) == (0, 0)
