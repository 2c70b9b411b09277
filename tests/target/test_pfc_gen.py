"""Switch-side PFC generation: XOFF at the threshold, XON on drain, refresh, per class."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.target.pfc_gen import PfcThresholds, default_mac
from emulator.target.tm import TrafficManager
from emulator.vocab.pfc import decode_pfc, quanta_to_ns


class Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def make() -> tuple[TrafficManager, Clock]:
    clock = Clock()
    tm = TrafficManager(clock, priority_queues=8)
    for p in (1, 2, 3):
        tm.add_port(p, 100e9)
    tm.set_pfc_thresholds(1, xoff=3, xon=1)
    return tm, clock


def frames(tm: TrafficManager, port: int) -> list[tuple[int, int]]:
    """(class-enable, quanta of that class) of each generated frame on ``port``."""
    out = []
    while (raw := tm.pop_control_frame(port)) is not None:
        d = decode_pfc(raw)
        assert d is not None and d.src_mac == default_mac(port)
        [cls] = d.paused_classes()
        out.append((cls, d.quanta[cls]))
    return out


def test_xoff_at_threshold_then_xon_after_drain() -> None:
    tm, _ = make()
    for i in range(2):
        tm.enqueue(2, 3, i, 100, ingress_port=1)
    assert tm.control_pending() == []
    tm.enqueue(3, 3, "x", 100, ingress_port=1)  # 3rd frame from port 1 (any egress) -> XOFF
    assert tm.control_pending() == [1]
    assert frames(tm, 1) == [(3, 0xFFFF)]
    tm.enqueue(2, 3, "y", 100, ingress_port=1)  # still congested: no duplicate
    assert frames(tm, 1) == []
    tm.dequeue(2)
    tm.dequeue(2)  # occupancy 2
    assert frames(tm, 1) == []
    tm.dequeue(2)  # occupancy 1 = xon -> resume
    assert frames(tm, 1) == [(3, 0)]
    st = tm.stats()[(1, 3)]
    assert (st.pfc_xoff_sent, st.pfc_xon_sent) == (1, 1)


def test_only_configured_ports_and_their_classes_generate() -> None:
    tm, _ = make()
    for i in range(5):
        tm.enqueue(3, 0, i, 100, ingress_port=2)  # port 2 not configured
        tm.enqueue(3, 5, i, 100)  # no ingress port given
    assert tm.control_pending() == []
    for i in range(3):
        tm.enqueue(3, 6, i, 100, ingress_port=1)
    assert frames(tm, 1) == [(6, 0xFFFF)]
    assert tm.pfc_gen.occupancy(1, 0) == 0 and tm.pfc_gen.occupancy(1, 6) == 3


def test_pause_is_refreshed_after_half_its_time() -> None:
    tm, clock = make()
    pause = quanta_to_ns(0xFFFF, 100e9)
    for i in range(3):
        tm.enqueue(2, 0, i, 100, ingress_port=1)
    assert len(frames(tm, 1)) == 1
    clock.now = pause // 2 - 1
    tm.enqueue(2, 0, "a", 100, ingress_port=1)
    assert frames(tm, 1) == []
    clock.now = pause // 2
    tm.enqueue(2, 0, "b", 100, ingress_port=1)
    assert frames(tm, 1) == [(0, 0xFFFF)]


def test_no_xon_when_the_pause_already_expired() -> None:
    tm, clock = make()
    for i in range(3):
        tm.enqueue(2, 0, i, 100, ingress_port=1)
    frames(tm, 1)
    clock.now = 10**9
    while tm.dequeue(2):
        pass
    assert frames(tm, 1) == []


def test_threshold_validation_and_disable() -> None:
    tm, _ = make()
    with pytest.raises(UserError, match="xon < xoff"):
        tm.set_pfc_thresholds(2, xoff=2, xon=2)
    with pytest.raises(UserError, match="quanta"):
        tm.set_pfc_thresholds(2, xoff=2, xon=0, quanta=0)
    with pytest.raises(ValueError):
        PfcThresholds(xoff=1, xon=-1)
    tm.set_pfc_thresholds(1, None)
    for i in range(5):
        tm.enqueue(2, 0, i, 100, ingress_port=1)
    assert tm.control_pending() == []


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 2), st.integers(0, 7)), max_size=120))
def test_occupancy_tracks_queued_frames_and_xon_follows_xoff(
    ops: list[tuple[bool, int, int]],
) -> None:
    tm, clock = make()
    tm.set_pfc_thresholds(2, xoff=2, xon=0, quanta=1)  # 2 ns pauses: expiries happen
    last: dict[tuple[int, int], int] = {}  # (ingress, class) -> last quanta sent
    for is_enq, which, prio in ops:
        clock.now += 7
        if is_enq:
            tm.enqueue(3, prio, which, 100, ingress_port=(1, 2, 3)[which])
        else:
            tm.dequeue(3)
        total = sum(tm.pfc_gen.occupancy(i, p) for i in (1, 2, 3) for p in range(8))
        assert total == tm.depth(3)
        for ingress in (1, 2):
            for cls, quanta in frames(tm, ingress):
                if quanta == 0:  # a resume only ever follows a pause
                    assert last.get((ingress, cls), 0) != 0
                last[(ingress, cls)] = quanta
    assert tm.control_pending() == []
    while tm.dequeue(3):
        pass
    assert all(tm.pfc_gen.occupancy(i, p) == 0 for i in (1, 2, 3) for p in range(8))
