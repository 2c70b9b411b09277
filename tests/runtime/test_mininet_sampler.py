"""No root: KernelSampler (counters on a thread, baseline, bound), utilisation, the run lock."""

from __future__ import annotations

import itertools
import os
import socket
import time

import pytest

from emulator.runtime.mininet.collect import _utilisation
from emulator.runtime.mininet.sampler import MIN_INTERVAL_NS, KernelSampler


def _loopback_traffic(n: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(n):
            s.sendto(b"x" * 100, ("127.0.0.1", 9))  # discard port; counted by lo either way


def test_samples_the_loopback_counters_from_a_zero_baseline() -> None:
    t0 = time.monotonic_ns()
    sampler = KernelSampler([("lo", "tx_packets"), ("lo", "tx_bytes")], 1, t0)
    assert sampler.interval_ns == MIN_INTERVAL_NS  # clamped
    sampler.start()
    try:
        time.sleep(0.05)
        _loopback_traffic(20)
        time.sleep(0.05)
    finally:
        sampler.stop()
    sampler.stop()  # idempotent
    s = sampler.series()
    assert s.rows[0] == (0, 0)  # the baseline is subtracted
    assert len(s.rows) >= 4 and s.t_ns == sorted(s.t_ns) and s.t_ns[0] >= 0
    pkts = s.column("lo", "tx_packets")
    assert pkts is not None and pkts == sorted(pkts) and pkts[-1] >= 20
    assert s.column("lo", "rx_bytes") is None


def test_memory_is_bounded_by_halving_the_resolution() -> None:
    sampler = KernelSampler([("lo", "rx_packets")], MIN_INTERVAL_NS, time.monotonic_ns(), 8)
    sampler.start()
    time.sleep(0.3)
    sampler.stop()
    s = sampler.series()
    assert len(s.rows) < 8 and sampler.interval_ns > MIN_INTERVAL_NS
    assert s.t_ns[-1] >= 250_000_000  # the whole span is kept


def test_rows_stay_half_an_interval_apart_after_a_stall(monkeypatch) -> None:
    # a 45 ms stall once: the old loop took the next row at once, a few us later, and a
    # frame counted in a few us read as several times the line rate (a CI flake)
    sampler = KernelSampler([("lo", "tx_packets")], MIN_INTERVAL_NS, time.monotonic_ns())
    read, calls = sampler._read, [0]

    def stalling() -> tuple[int, ...]:
        calls[0] += 1
        if calls[0] == 4:
            time.sleep(0.045)
        return read()

    monkeypatch.setattr(sampler, "_read", stalling)
    sampler.start()
    time.sleep(0.15)
    sampler._stop.set()  # stop the thread without the last row: the loop's spacing alone
    assert sampler._thread is not None
    sampler._thread.join(timeout=5)
    t = sampler.series().t_ns
    gaps = [b - a for a, b in itertools.pairwise(t)]
    assert calls[0] > 4 and min(gaps) >= 0.4 * MIN_INTERVAL_NS, gaps


def test_the_last_row_replaces_a_row_less_than_half_an_interval_before() -> None:
    sampler = KernelSampler([("lo", "tx_packets")], 10 * MIN_INTERVAL_NS, time.monotonic_ns())
    sampler.start()
    sampler._row()  # the loop's first row is 100 ms away: this stands in for it
    before = sampler.series()
    sampler.stop()  # its last row comes within us: it takes the place of the one before
    after = sampler.series()
    assert len(before.rows) == 2 and len(after.rows) == 2
    assert after.t_ns[0] == before.t_ns[0] and after.t_ns[1] > before.t_ns[1]


def test_missing_interfaces_read_as_zero_and_bad_stats_are_refused() -> None:
    sampler = KernelSampler([("no-such-if0", "tx_bytes")], MIN_INTERVAL_NS, time.monotonic_ns())
    sampler.start()
    sampler.stop()
    assert all(r == (0,) for r in sampler.series().rows)
    with pytest.raises(ValueError, match="unknown interface statistic"):
        KernelSampler([("lo", "tx_bogus")], MIN_INTERVAL_NS, 0)


def test_utilisation_counts_the_wire_overhead() -> None:
    # 10 frames of 101 bytes (+24 each) in 1 ms on a 10 Mb/s link: 10 * 125 * 8 / 10 000 = 1.0
    t, u = _utilisation([1_000_000, 2_000_000], [(1010, 10), (1010, 10)], 10e6)
    assert t == [1_000_000, 2_000_000] and u == [pytest.approx(1.0), 0.0]


def test_mininet_runs_take_turns_on_the_run_lock(tmp_path, monkeypatch) -> None:
    from emulator.errors import UserError
    from emulator.runtime.mininet import fabric as mininet_fabric

    monkeypatch.setattr(mininet_fabric, "STATE_ROOT", tmp_path)
    monkeypatch.setattr(mininet_fabric, "RUN_LOCK_WAIT_S", 0.3)
    first = mininet_fabric._take_run_lock()
    try:
        with pytest.raises(UserError, match="another Mininet run held"):
            mininet_fabric._take_run_lock()
    finally:
        os.close(first)  # released: the next run gets it
    os.close(mininet_fabric._take_run_lock())
