"""Link counters of a Mininet run sampled from the kernel, on a thread, every few ms.

Every switch interface lives in the root namespace, so its veth counters are readable at
``/sys/class/net/<if>/statistics/<stat>`` (kept open, re-read with ``pread``: ~1 us each).
This costs the switch processes nothing (unlike ``show_stats_json``) and works for BMv2 too::

    KernelSampler([("rtsw0-eth5", "tx_bytes"), ...], interval_ns=10_000_000, t0_mono_ns=t0)
      .start()  ─ thread: every interval, one row of all counters + its time since t0 ─┐
      .stop()   ─ joins, takes a last row; ``series()`` -> KernelSeries(t_ns, rows) ◄──┘

A row is stamped with the middle of its read pass; a pass slower than ``MAX_READ_NS`` (the
thread lost the CPU midway) is read again, so a 10 ms interval is not skewed by a 5 ms GIL
switch. Rows are at least half an interval apart: after a stall the next row waits that long,
and the last row (``stop``) replaces the one before if it comes sooner, since over a span
of a frame's time or less a counter moves by whole frames (a few us after a stall, one
frame read as several times the line rate). Bounded: at ``max_samples`` rows it keeps every second row and doubles the interval, so a
long run keeps its whole time span at a coarser step (memory <= max_samples rows).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

STATS = ("rx_bytes", "rx_packets", "tx_bytes", "tx_packets")
MIN_INTERVAL_NS = 10_000_000  # a Python thread wakes reliably at this step
MAX_SAMPLES = 4096
#: a pass over the counters longer than this (the thread lost the GIL or the CPU midway)
#: is read again, so a row's counters belong to its time stamp within this much
MAX_READ_NS = 500_000
READ_ATTEMPTS = 3


@dataclass
class KernelSeries:
    """Rows of counter values (baseline subtracted) at ``t_ns`` since the run start."""

    names: list[tuple[str, str]]  # (interface, stat) per column
    t_ns: list[int] = field(default_factory=list)
    rows: list[tuple[int, ...]] = field(default_factory=list)

    def column(self, iface: str, stat: str) -> list[int] | None:
        """One counter over time (None if it was not sampled)."""
        try:
            i = self.names.index((iface, stat))
        except ValueError:
            return None
        return [r[i] for r in self.rows]


class KernelSampler:
    """Samples interface counters of the root namespace on a daemon thread."""

    def __init__(
        self,
        counters: Sequence[tuple[str, str]],
        interval_ns: int,
        t0_mono_ns: int,
        max_samples: int = MAX_SAMPLES,
    ) -> None:
        bad = [s for _i, s in counters if s not in STATS]
        if bad:
            raise ValueError(f"unknown interface statistic(s): {', '.join(bad)}")
        self.names = list(counters)
        self.interval_ns = max(int(interval_ns), MIN_INTERVAL_NS)
        self.t0 = t0_mono_ns
        self.max_samples = max(2, max_samples)
        self._fds: list[int | None] = []
        self._base: tuple[int, ...] = ()
        self._series = KernelSeries(self.names)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _read(self) -> tuple[int, ...]:
        vals = []
        for fd in self._fds:
            try:
                vals.append(int(os.pread(fd, 32, 0)) if fd is not None else 0)
            except (OSError, ValueError):  # interface gone (teardown) or unreadable
                vals.append(0)
        return tuple(vals)

    def _row(self, replace_close: bool = False) -> None:
        for _ in range(READ_ATTEMPTS):  # each pread may yield the GIL: re-read a slow pass
            t1 = time.monotonic_ns()
            vals = self._read()
            t2 = time.monotonic_ns()
            if t2 - t1 <= MAX_READ_NS:
                break
        now = (t1 + t2) // 2 - self.t0
        row = tuple(max(0, v - b) for v, b in zip(vals, self._base, strict=True))
        with self._lock:
            s = self._series
            if replace_close and len(s.rows) > 1 and now - s.t_ns[-1] < self.interval_ns // 2:
                s.t_ns.pop()  # counters only grow: the row before's span joins the last one
                s.rows.pop()
            s.t_ns.append(now)
            s.rows.append(row)
            if len(s.rows) >= self.max_samples:  # keep the time span, halve the resolution
                s.t_ns[:] = s.t_ns[1::2]
                s.rows[:] = s.rows[1::2]
                self.interval_ns *= 2

    def start(self) -> None:
        """Open the counters, take the baseline, start the thread."""
        for iface, stat in self.names:
            try:
                self._fds.append(os.open(f"/sys/class/net/{iface}/statistics/{stat}", os.O_RDONLY))
            except OSError:
                self._fds.append(None)
        self._base = self._read()
        self._row()
        self._thread = threading.Thread(target=self._loop, name="fabemu-kernel-sampler")
        self._thread.daemon = True
        self._thread.start()

    def _loop(self) -> None:
        next_t = time.monotonic_ns() + self.interval_ns
        while not self._stop.wait(max(0.0, (next_t - time.monotonic_ns()) / 1e9)):
            self._row()
            next_t = max(next_t + self.interval_ns, time.monotonic_ns() + self.interval_ns // 2)

    def stop(self) -> None:
        """Stop the thread (idempotent), take a last row, close the counters."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=5)
            self._thread = None
            self._row(replace_close=True)
        for fd in self._fds:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fds = [None] * len(self._fds)

    def series(self) -> KernelSeries:
        """A copy of what was sampled so far."""
        with self._lock:
            s = self._series
            return KernelSeries(list(s.names), list(s.t_ns), list(s.rows))
