"""Control-plane actions at wall-clock run times, one at a time (Mininet runtime).

The actions are repairs: the live controller's route changes and the InfiniBand
re-sweeps (OpenSM for a fraction of a second, then the new LFTs into the switches). Like
a real controller or subnet manager, fabemu handles them one after another, in the order
they fell due: two re-sweeps at once would run two OpenSMs on one ibsim (the second
hangs), and a link's recovery swept before its failure would leave the LFTs of the
failure. One worker thread waits for the earliest due action and runs it.

Before the results are collected and the processes stopped, :meth:`TimedActions.settle`
cancels what is not yet due and waits for what is (running or queued), so no action is
cut off half-way by the teardown (its OpenSM killed, its table writes racing the
switches' shutdown) and the results see it done.

    at(delay, fn) ──► heap of (due, seq, fn) ──► worker: sleeps until the earliest is due,
                                                 runs it, next (failures logged)
    settle()      ──► closed: later at() calls refused; what is not yet due is dropped;
                      the worker finishes what is due, at most timeout_s, and ends
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("fabemu.run")


class TimedActions:
    """Control-plane actions run one at a time at their times, and their orderly end."""

    def __init__(self) -> None:
        #: (due on the monotonic clock, sequence, action): the earliest first
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0
        self._cv = threading.Condition()
        self._closed = False
        self._worker: threading.Thread | None = None

    def at(self, delay_s: float, fn: Callable[[], None]) -> bool:
        """Run ``fn()`` once ``delay_s`` seconds have passed and the actions due before it
        are done; False once settled (the run is ending: the action would come after it)."""
        with self._cv:
            if self._closed:
                log.warning("a control-plane action scheduled after the run's end was dropped")
                return False
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, delay_s), self._seq, fn))
            self._seq += 1
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="fabemu-actions")
                self._worker.daemon = True
                self._worker.start()
            self._cv.notify()
        return True

    def _next(self) -> Callable[[], None] | None:
        """The next action once it is due; None when settled and nothing is left."""
        with self._cv:
            while True:
                if not self._heap:
                    if self._closed:
                        return None
                    self._cv.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait <= 0:
                    return heapq.heappop(self._heap)[2]
                self._cv.wait(wait)

    def _work(self) -> None:
        while (fn := self._next()) is not None:
            try:
                fn()
            except Exception:  # a failed repair must not kill the run: it is logged
                log.exception("a scheduled control-plane action failed")

    def settle(self, timeout_s: float = 60.0) -> bool:
        """Refuse new actions, drop those not yet due, let the worker finish those due
        (at most ``timeout_s``); True when it did (idempotent)."""
        now = time.monotonic()
        with self._cv:
            self._closed = True
            self._heap = [entry for entry in self._heap if entry[0] <= now]
            heapq.heapify(self._heap)
            self._cv.notify()
            worker = self._worker
        if worker is None:
            return True
        worker.join(timeout_s)
        if worker.is_alive():
            log.warning("a control-plane action still running after %.0f s", timeout_s)
            return False
        return True
