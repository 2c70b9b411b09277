"""The MAC's pause refresh timer: a pause stays on while the congestion lasts, no longer.

A lossless hop in virtual time: an upstream TM sends a 10 Mb/s stream into a downstream TM
whose egress is held (its own downstream is stuck), so the downstream's queue sits above
XOFF for many pause times. With the timer the upstream never sends into the full queue;
without it (a runtime that never runs the timer) every lapse lets frames in until the queue
overflows. The upstream's PFC watchdog still declares a storm with renewed pauses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from emulator.target.pfc_refresh import PauseRefresher
from emulator.target.tm import TrafficManager
from emulator.vocab.pfc import build_pfc, decode_pfc, quanta_to_ns

RATE = 10e6
FRAME = 1024
FRAME_NS = (FRAME + 24) * 8 * 100  # ns at 10 Mb/s
QUANTA = 100  # 5.12 ms at 10 Mb/s
PAUSE_NS = quanta_to_ns(QUANTA, RATE)
XOFF, XON, DEPTH = 8, 4, 16
PRIO = 3
MS = 1_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


@dataclass
class Hop:
    """upstream port 1 ──data──► downstream port 1 ─► queue of port 2 (held unless released)."""

    clock: Clock = field(default_factory=Clock)
    up: TrafficManager = field(init=False)
    down: TrafficManager = field(init=False)
    sent_up: list[int] = field(default_factory=list)  # times the upstream sent a frame

    def __post_init__(self) -> None:
        self.up = TrafficManager(self.clock, 8)
        self.up.add_port(1, RATE)
        self.up.set_pfc(1, True)
        self.down = TrafficManager(self.clock, 8)
        for p in (1, 2):
            self.down.add_port(p, RATE)
        self.down.set_queue_depth(DEPTH)
        self.down.set_pfc_thresholds(1, XOFF, XON, QUANTA)

    def run(self, until_ns: int, *, timer: bool = True, drain_from: int | None = None) -> None:
        """One frame time per step: upstream sends if allowed, PFC frames cross at once."""
        n = 0
        while self.clock.now < until_ns:
            self.clock.now += FRAME_NS
            if timer:
                self.down.fire_control_timers()
            while (frame := self.down.pop_control_frame(1)) is not None:
                self.down.note_sent(1, frame)
                self.up.on_pfc_frame(1, frame)
            if drain_from is not None and self.clock.now >= drain_from:
                self.down.dequeue(2)
            if self.up.depth(1) == 0:
                self.up.enqueue(1, PRIO, n, FRAME)
                n += 1
            if self.up.dequeue(1) is not None:
                self.sent_up.append(self.clock.now)
                self.down.enqueue(2, PRIO, "data", FRAME, ingress_port=1)

    def dropped(self) -> int:
        return self.down.stats()[(2, PRIO)].dropped


def test_a_held_queue_keeps_the_upstream_paused_for_many_pause_times() -> None:
    hop = Hop()
    hop.run(40 * PAUSE_NS)
    assert hop.dropped() == 0
    assert hop.down.depth(2, PRIO) <= DEPTH
    assert len(hop.sent_up) == XOFF  # nothing after the XOFF (frames cross at once here)
    xoff, _xon = hop.down.pfc_gen.sent(1, PRIO)
    # one XOFF decided, then renewed every half pause (+ up to a step): > 1 per pause time
    assert xoff == 1 and hop.down.pfc_refresh.refreshes > 40


def test_without_the_timer_lapsed_pauses_overflow_the_queue() -> None:
    hop = Hop()
    hop.run(40 * PAUSE_NS, timer=False)
    assert hop.dropped() > 0
    assert hop.down.pfc_refresh.refreshes == 0


def test_the_xon_ends_the_refreshes_and_the_upstream_resumes() -> None:
    hop = Hop()
    release = 20 * PAUSE_NS
    hop.run(40 * PAUSE_NS, drain_from=release)
    assert hop.dropped() == 0
    assert not hop.down.pfc_refresh.paused(1, PRIO)
    _xoff, xon = hop.down.pfc_gen.sent(1, PRIO)
    assert xon >= 1
    assert any(t > release for t in hop.sent_up)
    assert hop.down.control_timer() is None  # no refresh armed once the XON went out


def test_the_watchdog_still_breaks_a_renewed_pause() -> None:
    """A stuck downstream renews its pause forever; the upstream's 20 ms watchdog (200 ms
    in the scenarios) declares a storm and sends anyway: the frames then drop downstream."""
    hop = Hop()
    hop.up.pfc.set_watchdog(20 * MS)
    hop.run(60 * MS)
    storms, ignored = hop.up.pfc.storms(1, PRIO)
    assert storms >= 1 and ignored > 0
    paused_at = hop.sent_up[XOFF - 1] + FRAME_NS  # the XOFF crossed the step after
    late = hop.sent_up[XOFF:]
    assert late and paused_at + 20 * MS <= late[0] <= paused_at + 20 * MS + 2 * FRAME_NS
    assert hop.dropped() > 0


def test_refresher_resends_the_frame_it_saw_every_half_pause() -> None:
    r = PauseRefresher()
    frame = build_pfc("02:00:00:00:00:07", {PRIO: QUANTA})
    r.on_sent(4, frame, 1000, RATE)
    due = 1000 + PAUSE_NS // 2
    assert r.next_due() == due and r.paused(4, PRIO)
    assert r.due(due - 1) == []
    [(port, again)] = r.due(due)
    assert port == 4 and again == frame and decode_pfc(again) is not None
    assert r.next_due() is None and r.due(due + PAUSE_NS) == []  # pending until sent
    r.on_sent(4, again, due + 5, RATE)
    assert r.next_due() == due + 5 + PAUSE_NS // 2
    r.on_sent(4, build_pfc("02:00:00:00:00:07", {PRIO: 0}), due + 6, RATE)
    assert r.next_due() is None and not r.paused(4, PRIO)
    r.on_sent(4, b"\x00" * 60, due + 7, RATE)  # not PFC: ignored
    assert r.refreshes == 1
