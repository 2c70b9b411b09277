"""Traffic manager: strict priority, tail drop, rate pacing in virtual time, metadata."""

from __future__ import annotations

import pytest

from emulator.errors import UserError
from emulator.target.flowcontrol import BLOCKED
from emulator.target.tm import DEFAULT_QUEUE_DEPTH, TrafficManager


class Clock:
    """A virtual ns clock the tests advance by hand."""

    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def make(prio: int = 1, **kw: object) -> tuple[TrafficManager, Clock]:
    clock = Clock()
    tm = TrafficManager(clock, priority_queues=prio, **kw)  # type: ignore[arg-type]
    tm.add_port(1)
    return tm, clock


def drain(tm: TrafficManager, port: int) -> list[object]:
    out = []
    while (d := tm.dequeue(port)) is not None:
        out.append(d.item)
    return out


def test_strict_priority_serves_highest_first_fifo_within_queue() -> None:
    tm, _ = make(prio=4)
    for i, prio in enumerate([0, 3, 1, 3, 0, 2]):
        assert tm.enqueue(1, prio, (prio, i), 100)
    assert drain(tm, 1) == [(3, 1), (3, 3), (2, 5), (1, 2), (0, 0), (0, 4)]


def test_dequeue_reports_priority_and_queueing_metadata() -> None:
    tm, clock = make(prio=2)
    clock.now = 1_000
    tm.enqueue(1, 1, "a", 64)
    tm.enqueue(1, 1, "b", 64)
    clock.now = 5_000
    d = tm.dequeue(1)
    assert d is not None
    assert (d.item, d.priority, d.enq_timestamp_ns) == ("a", 1, 1_000)
    assert (d.enq_qdepth, d.deq_qdepth, d.deq_timedelta_ns) == (0, 1, 4_000)
    d2 = tm.dequeue(1)
    assert d2 is not None and (d2.enq_qdepth, d2.deq_qdepth) == (1, 0)


def test_default_depth_is_64_and_tail_drops() -> None:
    tm, _ = make()
    results = [tm.enqueue(1, 0, i, 100) for i in range(DEFAULT_QUEUE_DEPTH + 5)]
    assert DEFAULT_QUEUE_DEPTH == 64
    assert results.count(True) == 64 and results[64:] == [False] * 5
    assert drain(tm, 1) == list(range(64))  # the tail, not the head, was dropped
    st = tm.stats()[(1, 0)]
    assert (st.enqueued, st.dequeued, st.dropped) == (64, 64, 5)


def test_set_queue_depth_per_priority_and_port() -> None:
    tm, _ = make(prio=2)
    tm.add_port(2)
    tm.set_queue_depth(2, port=1, priority=1)
    assert [tm.enqueue(1, 1, i, 10) for i in range(3)] == [True, True, False]
    assert all(tm.enqueue(1, 0, i, 10) for i in range(10))  # other queue unaffected
    tm.set_queue_depth(1, port=2)
    assert [tm.enqueue(2, 0, i, 10) for i in range(2)] == [True, False]
    tm.set_queue_depth(3)  # every queue, and the default for ports added later
    tm.add_port(3)
    assert [tm.enqueue(3, 1, i, 10) for i in range(4)] == [True, True, True, False]


def test_out_of_range_priority_is_dropped_like_simple_switch() -> None:
    tm, _ = make(prio=2)
    assert tm.enqueue(1, 2, "x", 10) is False
    assert tm.enqueue(1, -1, "y", 10) is False
    assert tm.depth(1) == 0 and tm.dropped_bad_priority(1) == 2


def test_rate_paces_in_virtual_time() -> None:
    tm, clock = make()
    tm.set_queue_rate(1000, port=1, priority=0)  # one packet per 1_000_000 ns
    for i in range(3):
        tm.enqueue(1, 0, i, 100)
    assert tm.ready_time(1) == 0
    assert tm.dequeue(1).item == 0  # type: ignore[union-attr]
    assert tm.ready_time(1) == 1_000_000
    assert tm.dequeue(1) is None  # not yet
    clock.now = 999_999
    assert tm.dequeue(1) is None
    clock.now = 1_000_000
    assert tm.dequeue(1).item == 1  # type: ignore[union-attr]
    assert tm.ready_time(1) == 2_000_000
    clock.now = 2_500_000
    assert tm.ready_time(1) == 2_500_000  # overdue: ready now
    assert tm.dequeue(1).item == 2  # type: ignore[union-attr]
    assert tm.ready_time(1) is None


def test_rate_zero_is_unlimited() -> None:
    tm, _ = make()
    tm.set_queue_rate(10)
    tm.set_queue_rate(0)
    for i in range(10):
        tm.enqueue(1, 0, i, 100)
    assert drain(tm, 1) == list(range(10))  # all at t=0


def test_rate_limited_high_queue_lets_lower_queue_through() -> None:
    tm, clock = make(prio=2)
    tm.set_queue_rate(1000, port=1, priority=1)
    tm.enqueue(1, 1, "h0", 100)
    tm.enqueue(1, 1, "h1", 100)
    tm.enqueue(1, 0, "l0", 100)
    assert drain(tm, 1) == ["h0", "l0"]  # h1 waits for its slot, l0 goes meanwhile
    assert tm.ready_time(1) == 1_000_000
    clock.now = 1_000_000
    assert drain(tm, 1) == ["h1"]


def test_rate_for_all_ports_applies_to_later_ports() -> None:
    tm, clock = make()
    tm.set_queue_rate(1_000_000)  # 1000 ns spacing
    tm.add_port(7)
    tm.enqueue(7, 0, "a", 64)
    tm.enqueue(7, 0, "b", 64)
    assert drain(tm, 7) == ["a"]
    clock.now = 1_000
    assert drain(tm, 7) == ["b"]


def test_ready_time_none_when_empty_and_unknown_port() -> None:
    tm, _ = make()
    assert tm.ready_time(1) is None
    assert tm.ready_time(99) is None and tm.dequeue(99) is None and tm.depth(99) == 0


def test_depth_counts_per_priority_and_total() -> None:
    tm, _ = make(prio=3)
    for prio in (0, 2, 2):
        tm.enqueue(1, prio, None, 10)
    assert (tm.depth(1), tm.depth(1, 0), tm.depth(1, 1), tm.depth(1, 2)) == (3, 1, 0, 2)


def test_serialization_paces_at_line_rate() -> None:
    tm, clock = make(serialize=True)
    tm.add_port(1, speed_bps=1e9)  # 1 bit/ns
    tm.enqueue(1, 0, "a", 1000)
    tm.enqueue(1, 0, "b", 1000)
    assert tm.dequeue(1).item == "a"  # type: ignore[union-attr]
    wire_ns = (1000 + 24) * 8
    assert tm.ready_time(1) == wire_ns
    assert tm.dequeue(1) is None
    clock.now = wire_ns
    assert tm.dequeue(1).item == "b"  # type: ignore[union-attr]


class _Credits:
    """A toy second scheme: queue (1, 0) blocked until credits arrive."""

    def __init__(self) -> None:
        self.credits = 0
        self.sent: list[int] = []

    def eligible_at(self, port: int, priority: int, now: int) -> int:
        return now if self.credits > 0 else BLOCKED

    def on_control_frame(self, port: int, frame: bytes, now: int) -> bool:
        if frame == b"credit":
            self.credits += 1
            return True
        return False

    def on_transmit(self, port: int, priority: int, length: int, now: int) -> None:
        self.credits -= 1
        self.sent.append(length)


def test_second_flow_control_scheme_sits_beside_pfc() -> None:
    tm, _ = make()
    credits = _Credits()
    tm.add_flow_control(credits)
    tm.enqueue(1, 0, "a", 100)
    assert tm.ready_time(1) is None and tm.dequeue(1) is None  # blocked on an event
    assert tm.on_control_frame(1, b"credit")
    assert tm.dequeue(1).item == "a"  # type: ignore[union-attr]
    assert credits.sent == [100] and credits.credits == 0


@pytest.mark.parametrize("bad", [0, 33])
def test_priority_queue_count_validated(bad: int) -> None:
    with pytest.raises(UserError, match="priority-queues"):
        TrafficManager(Clock(), priority_queues=bad)


def test_bad_settings_are_user_errors() -> None:
    tm, _ = make(prio=2)
    with pytest.raises(UserError, match="rate"):
        tm.set_queue_rate(-1)
    with pytest.raises(UserError, match="depth"):
        tm.set_queue_depth(-5, port=1)
    with pytest.raises(UserError, match="out of range"):
        tm.set_queue_depth(5, port=1, priority=2)
    with pytest.raises(UserError, match="needs a port"):
        tm.set_queue_rate(5, priority=0)
