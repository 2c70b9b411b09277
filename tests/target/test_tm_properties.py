"""Property test: TM conservation and FIFO order under random operations and pauses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.tm import TrafficManager
from emulator.vocab.pfc import encode_pfc

op = st.one_of(
    st.tuples(st.just("enq"), st.integers(1, 2), st.integers(-1, 3)),
    st.tuples(st.just("deq"), st.integers(1, 2), st.just(0)),
    st.tuples(st.just("tick"), st.integers(0, 5000), st.just(0)),
    st.tuples(st.just("pause"), st.integers(1, 2), st.integers(0, 50)),
    st.tuples(st.just("rate"), st.integers(1, 2), st.sampled_from([0, 1000, 100_000])),
    st.tuples(st.just("depth"), st.integers(1, 2), st.integers(0, 5)),
)


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(op, max_size=80), seed_class=st.integers(0, 2))
def test_tm_conservation(ops: list[tuple[str, int, int]], seed_class: int) -> None:
    now = [0]
    tm = TrafficManager(lambda: now[0], priority_queues=3)
    for port in (1, 2):
        tm.add_port(port, 1e9)
        tm.set_pfc(port, True)
    offered = 0
    out = 0
    last_seen: dict[tuple[int, int], int] = {}
    for kind, port, arg in ops:
        if kind == "enq":
            offered += 1
            tm.enqueue(port, arg, (port, arg, offered), 100)
        elif kind == "deq":
            d = tm.dequeue(port)
            if d is not None:
                out += 1
                _, prio, seq = d.item  # type: ignore[misc]
                assert prio == d.priority
                assert seq > last_seen.get((port, prio), 0)  # FIFO within a queue
                last_seen[(port, prio)] = seq
                assert d.deq_timedelta_ns >= 0
        elif kind == "tick":
            now[0] += arg
        elif kind == "pause":
            q = [arg] * 8
            tm.on_pfc_frame(port, encode_pfc(b"\x02" * 6, 1 << seed_class, q))
        elif kind == "rate":
            tm.set_queue_rate(arg, port=port)
        else:
            tm.set_queue_depth(arg, port=port, priority=seed_class)
        ready = tm.ready_time(port)
        assert ready is None or ready >= now[0]
    stats = tm.stats()
    enq = sum(s.enqueued for s in stats.values())
    deq = sum(s.dequeued for s in stats.values())
    dropped = sum(s.dropped for s in stats.values())
    bad = tm.dropped_bad_priority(1) + tm.dropped_bad_priority(2)
    queued = tm.depth(1) + tm.depth(2)
    assert deq == out
    assert offered == enq + dropped + bad
    assert enq == deq + queued
    # everything left eventually drains once time moves far enough
    now[0] += 10**10
    for port in (1, 2):
        while tm.dequeue(port) is not None:
            pass
    assert tm.depth(1) + tm.depth(2) == 0
