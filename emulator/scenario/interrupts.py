"""How a run is stopped early: a wall-clock limit, and Ctrl-C held off while results are saved.

``WallLimit`` (``fabemu run --wall-limit SECONDS``): when the limit passes, a timer thread
sends SIGINT to the main thread (handled even when the run inherited SIGINT ignored, as a
background job of a script does): the run stops the way Ctrl-C stops it (teardown, partial results kept), and :attr:`WallLimit.fired` tells the
runner to record "wall-clock limit reached" instead of "interrupted". A real signal rather
than ``_thread.interrupt_main``: it also wakes a main thread blocked in a system call.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

REPEAT_S = 1.0  # while still armed, the limit's SIGINT is repeated this often


class WallLimit:
    """Context manager: SIGINT to the main thread after ``seconds`` (None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.fired = False
        self._armed = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._ignored = False  # SIGINT was ignored on entry (restored on exit)

    def __enter__(self) -> WallLimit:
        if self.seconds is not None and threading.current_thread() is threading.main_thread():
            # a run started in the background by a shell without job control (nohup, `&`
            # in a script) inherits SIGINT ignored: the limit's own SIGINT must still land
            if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
                self._ignored = True
                signal.signal(signal.SIGINT, signal.default_int_handler)
            self._armed = True
            self._timer = threading.Timer(self.seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _fire(self) -> None:
        """SIGINT the main thread, and again each ``REPEAT_S`` until disarmed: a
        KeyboardInterrupt raised while the main thread runs a destructor or a weakref
        callback is only printed ("Exception ignored"), so one signal can be lost."""
        with self._lock:
            if not self._armed:
                return
            self.fired = True
            ident = threading.main_thread().ident
            if ident is not None:
                signal.pthread_kill(ident, signal.SIGINT)
            self._timer = threading.Timer(REPEAT_S, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def disarm(self) -> None:
        """Stop the timer; call inside the guarded block (a SIGINT racing it lands there)."""
        with self._lock:
            self._armed = False
            timer = self._timer
        if timer is not None:
            timer.cancel()

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _exc: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self.disarm()
        if self._ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    def reason(self) -> str:
        """What the run records when the limit stopped it."""
        return f"wall-clock limit of {self.seconds:g} s reached"


class SigintDeferral:
    """Between ``start()`` and ``stop()``, SIGINT sets :attr:`pending` instead of raising."""

    def __init__(self) -> None:
        self.pending = False
        self._old: Any = None

    def _note(self, _sig: int, _frame: FrameType | None) -> None:
        self.pending = True

    def start(self) -> None:
        """Hold SIGINT off (main thread only; elsewhere Python delivers no signals anyway)."""
        if self._old is None and threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._note)

    def stop(self) -> None:
        """Restore the previous SIGINT handler."""
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
