"""Control-plane actions at wall-clock run times, one at a time (Mininet runtime).

The actions are repairs: the live controller's route changes and the InfiniBand
re-sweeps (OpenSM for a fraction of a second, then the new LFTs into the switches). Like
a real controller or subnet manager, fabemu handles them one after another, in the order
they fell due: two re-sweeps at once would run two OpenSMs on one ibsim (the second
hangs), and a link's recovery swept before its failure would leave the LFTs of the
failure. A timer per action only says when it is due; one worker thread runs them.

Before the results are collected and the processes stopped, :meth:`TimedActions.settle`
cancels what is not yet due and waits for what is (running or queued), so no action is
cut off half-way by the teardown (its OpenSM killed, its table writes racing the
switches' shutdown) and the results see it done.

    at(delay, fn) ──► Timer ── delay ──► queue ──► worker: fn(); fn2(); ...  (failures logged)
    settle()      ──► closed: later at() calls refused
                      drop every action not yet due (its Timer cancelled);
                      queue those due whose Timer has not run yet
                      worker: finish the queue, at most timeout_s in all
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("fabemu.run")

_STOP = (float("inf"), 0, None)  # the worker's end marker: after every action queued


class TimedActions:
    """Control-plane actions run one at a time at their times, and their orderly end."""

    def __init__(self) -> None:
        self._timers: list[_Timed] = []
        #: (due, sequence, action): the earliest due first, should two timers fire out of order
        self._due: queue.PriorityQueue[tuple[float, int, Callable[[], None] | None]] = (
            queue.PriorityQueue()
        )
        self._lock = threading.Lock()
        self._closed = False
        self._stop_queued = False
        self._worker: threading.Thread | None = None

    def at(self, delay_s: float, fn: Callable[[], None]) -> bool:
        """Run ``fn()`` once ``delay_s`` seconds have passed and the actions due before it
        are done; False once settled (the run is ending: the action would come after it)."""
        with self._lock:
            if self._closed:
                log.warning("a control-plane action scheduled after the run's end was dropped")
                return False
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="fabemu-actions")
                self._worker.daemon = True
                self._worker.start()
            timed = _Timed(time.monotonic() + max(0.0, delay_s), len(self._timers), fn)
            timed.timer = threading.Timer(max(0.0, delay_s), self._fire, (timed,))
            timed.timer.daemon = True
            self._timers.append(timed)
            timed.timer.start()
        return True

    def _fire(self, timed: _Timed) -> None:
        with self._lock:
            if timed.state != "waiting":
                return
            timed.state = "queued"
            self._due.put((timed.due, timed.seq, timed.fn))

    def _work(self) -> None:
        while (fn := self._due.get()[2]) is not None:
            try:
                fn()
            except Exception:  # a failed repair must not kill the run: it is logged
                log.exception("a scheduled control-plane action failed")

    def settle(self, timeout_s: float = 60.0) -> bool:
        """Refuse new actions, drop those not yet due, let the worker finish those due
        (including any whose timer thread has not run yet), at most ``timeout_s``; True
        when it did (idempotent)."""
        now = time.monotonic()
        with self._lock:
            self._closed = True
            late = sorted(
                (t for t in self._timers if t.state == "waiting" and t.due <= now),
                key=lambda t: t.due,
            )
            for timed in self._timers:
                if timed.state == "waiting":
                    timed.state = "dropped"
                if timed.timer is not None:
                    timed.timer.cancel()
            for timed in late:
                timed.state = "queued"
                self._due.put((timed.due, timed.seq, timed.fn))
            worker = self._worker
            if worker is not None and not self._stop_queued:
                self._stop_queued = True
                self._due.put(_STOP)
        if worker is None:
            return True
        worker.join(timeout_s)
        if worker.is_alive():
            log.warning("a control-plane action still running after %.0f s", timeout_s)
            return False
        return True


@dataclass(eq=False)
class _Timed:
    """One action and its due time (monotonic s); ``state``: waiting, queued, dropped."""

    due: float
    seq: int
    fn: Callable[[], None]
    state: str = "waiting"
    timer: threading.Timer | None = None
