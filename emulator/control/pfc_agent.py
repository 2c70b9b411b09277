"""PFC on real BMv2: a control-plane agent that pauses queues by throttling their rate.

BMv2 cannot pause a queue from P4 and has no PFC in its traffic manager. roce_fabric.p4
records every PFC frame it receives in two registers per (port, priority):
``pfc_rx_seq`` (frames seen) and ``pfc_rx_quanta`` (the last pause time). This agent polls
them through simple_switch_CLI commands and emulates the pause on the egress queue
(port, priority) that feeds the neighbour who asked for it::

    PFC frame in on port P, class q, quanta Q > 0
        -> set_queue_rate <paused_pps> P q           (BMv2: rate 0 means *unlimited*,
           until now + Q * 512 / speed(P)             so "paused" is a minimal rate, 1 pps)
    quanta 0 (XON), or the pause time has elapsed
        -> set_queue_rate <normal_pps> P q

A refreshed XOFF extends the pause. The reaction lags by the polling interval; a queue
throttled to 1 pps may still release one packet per second.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from emulator.control import names
from emulator.control.apply import CommandSink
from emulator.control.errors import CommandFailed

_VALUE = re.compile(r"=\s*(\d+)\s*$")


@dataclass
class PfcAgent:
    """Polls one switch's PFC registers and throttles / restores its egress queues."""

    sink: CommandSink
    #: port -> link speed (bits/s), which converts quanta into time
    port_speed_bps: Mapping[int, float]
    priorities: Sequence[int] = (3,)
    paused_rate_pps: int = 1
    #: the rate restored on resume; 0 = unlimited (BMv2's default)
    normal_rate_pps: int = 0
    _seq: dict[tuple[int, int], int] = field(default_factory=dict)
    _until: dict[tuple[int, int], int] = field(default_factory=dict)

    def _read(self, register: str, index: int) -> int:
        reply = self.sink.cli(f"register_read {register} {index}") or ""
        match = _VALUE.search(reply.strip())
        if match is None:
            raise CommandFailed(f"register_read {register} {index}: unexpected reply {reply!r}")
        return int(match.group(1))

    def _set_rate(self, pps: int, port: int, prio: int, issued: list[str]) -> None:
        line = f"set_queue_rate {pps} {port} {prio}"
        self.sink.cli(line)
        issued.append(line)

    def paused(self) -> dict[tuple[int, int], int]:
        """(port, priority) -> ns until which the queue is held."""
        return dict(self._until)

    def next_deadline(self) -> int | None:
        """Earliest ns at which a pause expires, or None when nothing is paused."""
        return min(self._until.values(), default=None)

    def poll(self, now_ns: int) -> list[str]:
        """Read the registers once, apply pauses / resumes due at ``now_ns``; the commands sent."""
        issued: list[str] = []
        for port, speed in sorted(self.port_speed_bps.items()):
            for prio in self.priorities:
                key = (port, prio)
                index = names.port_prio_index(port, prio)
                seq = self._read(names.PFC_RX_SEQ, index)
                if seq != self._seq.setdefault(key, seq):
                    self._seq[key] = seq
                    quanta = self._read(names.PFC_RX_QUANTA, index)
                    if quanta:
                        pause_ns = -(-quanta * 512 * 10**9 // int(speed))
                        if key not in self._until:
                            self._set_rate(self.paused_rate_pps, port, prio, issued)
                        self._until[key] = now_ns + pause_ns
                    elif key in self._until:
                        del self._until[key]
                        self._set_rate(self.normal_rate_pps, port, prio, issued)
                if key in self._until and now_ns >= self._until[key]:
                    del self._until[key]
                    self._set_rate(self.normal_rate_pps, port, prio, issued)
        return issued

    def run(
        self,
        clock_ns: Callable[[], int],
        sleep: Callable[[float], None],
        interval_s: float,
        max_polls: int,
    ) -> int:
        """Poll every ``interval_s`` seconds, at most ``max_polls`` times; the commands sent."""
        sent = 0
        for _ in range(max_polls):
            sent += len(self.poll(clock_ns()))
            sleep(interval_s)
        return sent
