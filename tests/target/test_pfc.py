"""PFC (802.1Qbb): codec and pausing of the traffic manager's queues in virtual time."""

from __future__ import annotations

import pytest

from emulator.target.tm import TrafficManager
from emulator.vocab.pfc import (
    PFC_DST_MAC,
    decode_pfc,
    encode_pfc,
    quanta_to_ns,
)

SRC = "02:00:00:00:00:01"


class Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def pfc(classes: dict[int, int]) -> bytes:
    enable = sum(1 << c for c in classes)
    quanta = [classes.get(c, 0) for c in range(8)]
    return encode_pfc(SRC, enable, quanta)


def make(speed: float = 10e9) -> tuple[TrafficManager, Clock]:
    clock = Clock()
    tm = TrafficManager(clock, priority_queues=8)
    tm.add_port(1, speed_bps=speed)
    tm.set_pfc(1, True)
    return tm, clock


def test_encoding_layout() -> None:
    frame = encode_pfc(SRC, 0b1000_0001, [1, 0, 0, 0, 0, 0, 0, 0xFFFF])
    assert len(frame) == 60
    assert frame[:6] == PFC_DST_MAC == bytes.fromhex("0180c2000001")
    assert frame[6:12] == bytes.fromhex("020000000001")
    assert frame[12:16] == bytes.fromhex("88080101")
    assert frame[16:18] == bytes.fromhex("0081")
    assert frame[18:20] == bytes.fromhex("0001") and frame[32:34] == bytes.fromhex("ffff")
    assert frame[34:] == bytes(26)


def test_decode_rejects_non_pfc() -> None:
    frame = pfc({3: 10})
    assert decode_pfc(frame[:20]) is None
    assert decode_pfc(frame[:12] + b"\x08\x00" + frame[14:]) is None  # IPv4
    assert decode_pfc(frame[:14] + b"\x00\x01" + frame[16:]) is None  # 802.3x PAUSE
    d = decode_pfc(frame)
    assert d is not None and d.paused_classes() == [3] and d.quanta[3] == 10


@pytest.mark.parametrize(
    ("args", "msg"),
    [
        (("zz:00:00:00:00:01", 1, [0] * 8), "MAC"),
        ((b"\x00" * 5, 1, [0] * 8), "6 bytes"),
        ((SRC, 256, [0] * 8), "class_enable"),
        ((SRC, 1, [0] * 7), "8 quanta"),
        ((SRC, 1, [70000] + [0] * 7), "0..65535"),
    ],
)
def test_encoder_validates(args: tuple, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        encode_pfc(*args)


def test_quanta_to_ns() -> None:
    assert quanta_to_ns(0xFFFF, 10e9) == 3_355_392  # 65535 * 51.2 ns
    assert quanta_to_ns(1, 10e9) == 52  # 51.2 rounded up
    assert quanta_to_ns(100, 100e9) == 512
    assert quanta_to_ns(0, 10e9) == 0


def test_pause_blocks_only_paused_classes_for_exactly_quanta_time() -> None:
    tm, clock = make(speed=100e9)  # 1 quantum = 5.12 ns
    for prio in (0, 3, 5):
        tm.enqueue(1, prio, prio, 100)
    clock.now = 1000
    assert tm.on_pfc_frame(1, pfc({5: 1000, 0: 1000}))  # 5120 ns
    d = tm.dequeue(1)
    assert d is not None and d.item == 3  # 5 and 0 paused, 3 goes
    assert tm.dequeue(1) is None
    assert tm.ready_time(1) == 6120
    clock.now = 6119
    assert tm.dequeue(1) is None
    clock.now = 6120
    assert [tm.dequeue(1).item, tm.dequeue(1).item] == [5, 0]  # type: ignore[union-attr]
    st = tm.stats()
    assert st[(1, 5)].pause_frames == 1 and st[(1, 5)].paused_ns == 5120
    assert st[(1, 3)].pause_frames == 0 and st[(1, 3)].paused_ns == 0


def test_quanta_zero_resumes() -> None:
    tm, clock = make()
    tm.enqueue(1, 2, "x", 100)
    tm.on_pfc_frame(1, pfc({2: 0xFFFF}))
    assert tm.dequeue(1) is None
    clock.now = 500
    tm.on_pfc_frame(1, pfc({2: 0}))
    assert tm.dequeue(1).item == "x"  # type: ignore[union-attr]
    st = tm.stats()[(1, 2)]
    assert st.pause_frames == 2 and st.paused_ns == 500


def test_new_frame_overrides_running_timer() -> None:
    tm, clock = make(speed=1e9)  # 1 quantum = 512 ns
    tm.enqueue(1, 1, "x", 100)
    tm.on_pfc_frame(1, pfc({1: 100}))  # until 51_200
    clock.now = 10_000
    tm.on_pfc_frame(1, pfc({1: 10}))  # shortened: until 15_120
    assert tm.ready_time(1) == 15_120
    clock.now = 15_120
    assert tm.dequeue(1) is not None
    tm.enqueue(1, 1, "y", 100)
    tm.on_pfc_frame(1, pfc({1: 10}))  # until 20_240
    clock.now = 16_000
    tm.on_pfc_frame(1, pfc({1: 100}))  # extended: until 67_200
    assert tm.ready_time(1) == 67_200
    assert tm.stats()[(1, 1)].paused_ns == 15_120 + 880


def test_pause_ignored_when_pfc_disabled() -> None:
    clock = Clock()
    tm = TrafficManager(clock, priority_queues=8)
    tm.add_port(1)
    tm.enqueue(1, 0, "x", 100)
    assert tm.on_pfc_frame(1, pfc({0: 0xFFFF})) is True  # still recognised as PFC
    assert tm.dequeue(1).item == "x"  # type: ignore[union-attr]
    assert tm.stats()[(1, 0)].pause_frames == 0
    assert tm.pfc.ignored_frames == {1: 1}


def test_disabling_pfc_releases_paused_queue() -> None:
    tm, clock = make()
    tm.enqueue(1, 0, "x", 100)
    tm.on_pfc_frame(1, pfc({0: 0xFFFF}))
    clock.now = 100
    tm.set_pfc(1, False)
    assert tm.dequeue(1).item == "x"  # type: ignore[union-attr]
    assert tm.stats()[(1, 0)].paused_ns == 100


def test_pause_is_per_port() -> None:
    tm, _ = make()
    tm.add_port(2)
    tm.set_pfc(2, True)
    tm.enqueue(1, 0, "p1", 100)
    tm.enqueue(2, 0, "p2", 100)
    tm.on_pfc_frame(1, pfc({0: 0xFFFF}))
    assert tm.dequeue(1) is None
    assert tm.dequeue(2).item == "p2"  # type: ignore[union-attr]


def test_non_pfc_frame_is_not_consumed() -> None:
    tm, _ = make()
    assert tm.on_pfc_frame(1, bytes(60)) is False
    assert tm.on_control_frame(1, bytes(60)) is False
    assert tm.on_control_frame(1, pfc({0: 1})) is True
