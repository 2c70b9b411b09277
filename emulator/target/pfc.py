"""IEEE 802.1Qbb Priority-based Flow Control: the PFC flow-control scheme of the TM.

Frames are decoded by the one codec, :mod:`emulator.vocab.pfc`. A quantum is 512 bit-times at the receiving port's speed, so the pause lasts
``quanta * 512 / speed`` seconds (rounded up to whole ns here). A quanta of 0 resumes
the class at once; a new frame for a class replaces its running timer. fabemu maps
switch priority (queue) ``i`` to PFC class ``i``; queues 8 and above are never paused.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.vocab.pfc import decode_pfc, quanta_to_ns


@dataclass
class _ClassState:
    """Pause state and counters of one (port, class)."""

    start: int = 0
    until: int = 0
    frames: int = 0
    paused_closed_ns: int = 0
    began: int = 0  # start of the current unbroken pause (watchdog)
    storm: bool = False  # the watchdog fired: pauses are ignored until the storm ends
    last_frame: int = 0
    storms: int = 0
    ignored: int = 0  # pause frames ignored during storms

    def paused_ns(self, now: int) -> int:
        """Total paused time up to ``now`` (closed intervals plus the running one)."""
        return self.paused_closed_ns + max(0, min(self.until, now) - self.start)


class PfcFlowControl:
    """The PFC scheme (a :class:`~emulator.target.flowcontrol.FlowControl`).

    Per port: enabled flag (default off, like a port without PFC configured) and speed.
    Frames received on a port pause that port's egress queues of the named classes.
    """

    def __init__(self, default_speed_bps: float = 10e9) -> None:
        self._default_speed = default_speed_bps
        self._enabled: dict[int, bool] = {}
        self._speed: dict[int, float] = {}
        self._state: dict[tuple[int, int], _ClassState] = {}
        self.ignored_frames: dict[int, int] = {}  # PFC frames received with PFC disabled
        #: PFC watchdog (ns): a class paused without a break this long stops honouring pauses
        #: (a storm) until no pause frame arrived for as long again; None = off
        self.watchdog_ns: int | None = None

    def set_enabled(self, port: int, enabled: bool, now: int = 0) -> None:
        """Honour (or ignore) PFC frames received on ``port``; disabling resumes at ``now``."""
        self._enabled[port] = bool(enabled)
        if not enabled:
            for (p, _c), st in self._state.items():
                if p == port and st.until > now:
                    st.paused_closed_ns += max(0, now - st.start)
                    st.start = st.until = now

    def enabled(self, port: int) -> bool:
        """Whether PFC is honoured on ``port``."""
        return self._enabled.get(port, False)

    def set_speed(self, port: int, speed_bps: float) -> None:
        """Speed used to turn quanta into time for frames received on ``port``."""
        if speed_bps <= 0:
            raise ValueError(f"port speed must be positive, got {speed_bps}")
        self._speed[port] = speed_bps

    def _class(self, port: int, cls: int) -> _ClassState:
        st = self._state.get((port, cls))
        if st is None:
            st = self._state[(port, cls)] = _ClassState()
        return st

    def set_watchdog(self, watchdog_ns: int | None) -> None:
        """Arm (or with None disarm) the PFC watchdog on every port."""
        self.watchdog_ns = watchdog_ns

    def eligible_at(self, port: int, priority: int, now: int) -> int:
        """``now`` unless class ``priority`` of ``port`` is paused: then its resume time
        (or, with the watchdog armed, the time the watchdog will declare a storm)."""
        st = self._state.get((port, priority))
        if st is None or st.until <= now:
            return now
        wd = self.watchdog_ns
        if wd is None:
            return st.until
        if now - st.began >= wd:  # paused too long: a storm; stop honouring
            st.storm = True
            st.storms += 1
            st.paused_closed_ns += max(0, now - st.start)
            st.start = st.until = now
            return now
        return min(st.until, st.began + wd)

    def storms(self, port: int, priority: int) -> tuple[int, int]:
        """(watchdog storms declared, pause frames ignored in them) for (port, class)."""
        st = self._state.get((port, priority))
        return (st.storms, st.ignored) if st else (0, 0)

    def on_control_frame(self, port: int, frame: bytes, now: int) -> bool:
        """Apply a PFC frame received on ``port`` at ``now``; True if it was PFC."""
        pfc = decode_pfc(frame)
        if pfc is None:
            return False
        if not self.enabled(port):
            self.ignored_frames[port] = self.ignored_frames.get(port, 0) + 1
            return True
        speed = self._speed.get(port, self._default_speed)
        for cls in pfc.paused_classes():
            st = self._class(port, cls)
            st.frames += 1
            if self._in_storm(st, now):
                st.ignored += 1
                continue
            if st.until <= now:
                st.began = now
            st.paused_closed_ns += max(0, min(st.until, now) - st.start)
            st.start = now
            st.until = now + quanta_to_ns(pfc.quanta[cls], speed)  # quanta 0: resume
        return True

    def _in_storm(self, st: _ClassState, now: int) -> bool:
        """Whether a pause frame arriving now falls in a watchdog storm (and note its time);
        a storm ends once pause frames stopped for a watchdog period."""
        wd = self.watchdog_ns
        quiet = now - st.last_frame
        st.last_frame = now
        if st.storm and wd is not None and quiet < wd:
            return True
        st.storm = False
        return False

    def on_transmit(self, port: int, priority: int, length: int, now: int) -> None:
        """PFC keeps no per-frame state on the sending side."""

    def pause_frames(self, port: int, priority: int) -> int:
        """PFC frames received on ``port`` that addressed class ``priority``."""
        st = self._state.get((port, priority))
        return st.frames if st else 0

    def paused_ns(self, port: int, priority: int, now: int) -> int:
        """Total time class ``priority`` of ``port`` has been paused up to ``now``."""
        st = self._state.get((port, priority))
        return st.paused_ns(now) if st else 0
