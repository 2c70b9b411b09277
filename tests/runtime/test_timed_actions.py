"""The Mininet runtime's timed control-plane actions: one at a time, in order, and an
orderly end (no root needed)."""

from __future__ import annotations

import threading
import time

import pytest

from emulator.runtime.mininet.actions import TimedActions


def test_actions_run_one_at_a_time_in_the_order_they_fall_due() -> None:
    """A link's failure and its recovery 30 ms later: the second re-sweep waits for the
    first (two OpenSMs on one ibsim hang) and never overtakes it."""
    actions, log = TimedActions(), []
    busy = threading.Lock()

    def sweep(name: str, seconds: float) -> None:
        assert busy.acquire(blocking=False), "two actions ran at once"
        try:
            log.append(f"{name} start")
            time.sleep(seconds)
            log.append(f"{name} end")
        finally:
            busy.release()

    actions.at(0.0, lambda: sweep("down", 0.2))
    actions.at(0.03, lambda: sweep("up", 0.0))
    time.sleep(0.05)  # both due: settle() now runs what is left of them
    assert actions.settle(timeout_s=10)
    assert log == ["down start", "down end", "up start", "up end"]


def test_settle_waits_for_what_is_due_and_drops_what_is_not() -> None:
    """At a run's end the sweep under way finishes (its OpenSM is not killed by the
    teardown), so does the one queued behind it; the repair not yet due is dropped."""
    actions, started, release = TimedActions(), threading.Event(), threading.Event()
    done: list[str] = []

    def running() -> None:
        started.set()
        release.wait(10)
        done.append("running")

    assert actions.at(0, running)
    assert actions.at(0.02, lambda: done.append("queued"))
    assert actions.at(30, lambda: done.append("pending"))
    assert started.wait(10)
    time.sleep(0.05)  # "queued" is due, behind "running"
    threading.Timer(0.2, release.set).start()  # finishes only after settle() began
    assert actions.settle(timeout_s=10)
    assert done == ["running", "queued"]
    assert not actions.at(0, lambda: done.append("late"))  # the run is over
    assert actions.settle() and done == ["running", "queued"]  # idempotent


def test_settle_gives_up_after_its_timeout_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    actions, started, release = TimedActions(), threading.Event(), threading.Event()

    def stuck() -> None:
        started.set()
        release.wait(10)

    actions.at(0, stuck)
    assert started.wait(10)
    try:
        assert not actions.settle(timeout_s=0.05)
        assert "a control-plane action still running after" in caplog.text
    finally:
        release.set()
    assert actions.settle(timeout_s=10)


def test_a_failing_action_is_logged_and_the_next_still_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    actions, done = TimedActions(), []

    def broken() -> None:
        raise RuntimeError("the switch refused the LFT")

    actions.at(0, broken)
    actions.at(0.01, lambda: done.append("next"))
    time.sleep(0.05)
    assert actions.settle(timeout_s=10)
    assert "a scheduled control-plane action failed" in caplog.text
    assert "the switch refused the LFT" in caplog.text and done == ["next"]


def test_settle_without_any_action() -> None:
    assert TimedActions().settle(timeout_s=0)
