"""FASTHOP's off-heap wake-ups: a port's empty wake-up kept off the event heap changes
neither a result nor the order frames arrive in, also when the run is cut into pieces and
every port is kicked at each cut: at times when no wake-up is due, and exactly when a
port's last frame ends (its wake-up due now: ``Engine.cur`` tells whether it has run)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.runtime.virtual.engine import DRAINED, Engine
from emulator.runtime.virtual.runtime import VirtualRuntime
from tests.runtime.vt_fabric import META, config

WORK = {
    "kind": "fat_flows",
    "pairs": [["h0", "h4"], ["h1", "h5"], ["h2", "h4"], ["h3", "h6"]],
    "size_bytes": 32768,
    "num_qps": 2,
}
Log = list[tuple[int, str, bytes]]


def _run(fasthop: bool, stops: list[int], mp: pytest.MonkeyPatch) -> tuple[Any, Log, int]:
    """result.json (without wall-clock fields), every delivery (time, link, frame) in
    order, and the events run; the run pauses at each of ``stops`` and kicks every port."""
    mp.setenv("FABEMU_FASTHOP", "1" if fasthop else "0")
    plan, _ = config("two_rack_4spine", rnic={"chunk_bytes": 4096})
    log: Log = []
    with VirtualRuntime(plan) as rt:
        rt.start()
        for ld in rt.links:
            inner, name = ld.deliver, ld.name
            assert inner is not None

            def deliver(port: int, frame: bytes, t: int, inner: Any = inner, n: str = name) -> None:
                log.append((t, n, frame))
                inner(port, frame, t)

            ld.deliver = deliver
        rt.add_workload(WORK)
        for t in stops:
            if rt.run(t):
                break
            for box in rt.boxes.values():
                box.kick_all(rt.engine.now)
        assert rt.run(10**10)
        data = json.loads(rt.result(META).model_dump_json())
        events = int(rt.stats()["events"])
    data["meta"].pop("wall_s", None)
    data["meta"].pop("started_at", None)
    return data, log, events


def _frame_ends(log: Log) -> list[int]:
    """When the frames that reached a host left their switch port (delivery - delay)."""
    plan, _ = config("two_rack_4spine")
    delay = {f"{lk.b}:{lk.b_port}->{lk.a}:{lk.a_port}": lk.delay_ns for lk in plan.topo.links}
    return sorted({t - delay[n] for t, n, _f in log if n in delay})


def test_off_heap_wakeups_change_nothing(monkeypatch: Any) -> None:
    """Same result.json and deliveries with FASTHOP on and off; fewer events on."""
    off, log_off, events_off = _run(False, [], monkeypatch)
    on, log_on, events_on = _run(True, [], monkeypatch)
    assert (on, log_on) == (off, log_off)
    assert off["totals"]["packets_sent"] > 0
    assert events_on < events_off  # the empty wake-ups stayed off the heap


@pytest.mark.parametrize("cuts", ["steps", "frame ends"])
def test_kicks_between_runs_order_wakeups_as_before(cuts: str, monkeypatch: Any) -> None:
    """Kicks put the wake-ups still due on the heap with their own sequence numbers (so
    they pop where they would have) and let the ones due before (or now) pass."""
    _, log, _ = _run(False, [], monkeypatch)
    stops = list(range(0, log[-1][0], 3_389)) if cuts == "steps" else _frame_ends(log)[::3]
    off = _run(False, stops, monkeypatch)
    on = _run(True, stops, monkeypatch)
    assert len(stops) > 20
    assert on[:2] == off[:2]


def test_engine_cur_is_the_running_event_then_drained() -> None:
    """``Engine.cur``: the sequence number of the running event; DRAINED once a run ran
    everything up to its end; unchanged when an event stopped the run."""
    eng = Engine()
    seen: list[int] = []
    eng.at(5, lambda _a: seen.append(eng.cur))
    eng.at(5, lambda _a: seen.append(eng.cur))
    eng.at(9, lambda _a: setattr(eng, "stop", True))
    eng.at(9, lambda _a: seen.append(eng.cur))
    assert not eng.run(7)
    assert seen == [0, 1] and eng.cur == DRAINED and eng.now == 7
    assert eng.run(100)
    assert eng.cur == 2 and eng.now == 9 and eng.pending() == 1
    assert not eng.run(100)
    assert seen == [0, 1, 3] and eng.cur == DRAINED
