"""WallLimit: its SIGINT is repeated until the run stops, and never sent after disarm."""

from __future__ import annotations

import signal
import time
from types import FrameType

import pytest

from emulator.scenario.interrupts import REPEAT_S, WallLimit


class _SwallowFirst:
    """A SIGINT handler that loses the first signal (as a destructor running when it lands
    would) and raises on the next."""

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, _sig: int, _frame: FrameType | None) -> None:
        self.seen += 1
        if self.seen > 1:
            raise KeyboardInterrupt


def _with_handler(handler: _SwallowFirst, seconds: float, busy_s: float) -> bool:
    """Run a busy loop under WallLimit(seconds); True if it was interrupted."""
    old = signal.signal(signal.SIGINT, handler)
    try:
        with WallLimit(seconds) as limit:
            end = time.monotonic() + busy_s
            while time.monotonic() < end:
                time.sleep(0.01)
            limit.disarm()
        return False
    except KeyboardInterrupt:
        assert limit.fired
        return True
    finally:
        signal.signal(signal.SIGINT, old)


def test_a_lost_sigint_is_sent_again() -> None:
    handler = _SwallowFirst()
    t0 = time.monotonic()
    assert _with_handler(handler, 0.05, busy_s=10 * REPEAT_S)
    assert handler.seen == 2
    assert time.monotonic() - t0 < 5 * REPEAT_S


def test_no_sigint_after_disarm() -> None:
    handler = _SwallowFirst()
    assert not _with_handler(handler, 0.5 * REPEAT_S, busy_s=0.0)
    time.sleep(1.5 * REPEAT_S)
    assert handler.seen == 0


@pytest.mark.parametrize("seconds", [None])
def test_no_limit_never_fires(seconds: float | None) -> None:
    handler = _SwallowFirst()
    assert not _with_handler(handler, seconds, busy_s=0.1)  # type: ignore[arg-type]
    assert handler.seen == 0


def test_the_limit_fires_when_sigint_was_inherited_ignored() -> None:
    """A run started in the background by a script (no job control) inherits SIGINT
    ignored; the limit still stops it, and SIGINT is ignored again afterwards."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt), WallLimit(0.05) as limit:
            end = time.monotonic() + 10 * REPEAT_S
            while time.monotonic() < end:
                time.sleep(0.01)
        assert limit.fired
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)
