"""The RNIC processes' start barrier: ready files in, one start time out."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from emulator.traffic.start_barrier import await_start, ready_file, release


class _Running:
    """A stand-in for a Popen that is still running."""

    def poll(self) -> None:
        return None


def test_release_waits_for_every_ready_process_and_starts_them_together(tmp_path: Path) -> None:
    start = tmp_path / "start"
    cfgs = [{"ready_file": ready_file(tmp_path / f"rnic-h{i}.json"), "start_file": str(start)}
            for i in range(3)]  # fmt: skip
    got: list[int] = []

    def proc(cfg: dict[str, Any], delay: float) -> None:
        time.sleep(delay)  # a slow starter
        got.append(await_start(cfg, time.monotonic_ns() + 10**10))

    threads = [threading.Thread(target=proc, args=(c, 0.1 * i)) for i, c in enumerate(cfgs)]
    for t in threads:
        t.start()
    waiting = [(Path(c["ready_file"]), _Running()) for c in cfgs]
    t0 = time.monotonic_ns()
    start_at = release(waiting, start, not_before_ns=t0 + 50_000_000, lead_ns=10_000_000)  # type: ignore[arg-type]
    for t in threads:
        t.join(timeout=10)
    assert all(Path(c["ready_file"]).exists() for c in cfgs)
    assert start_at >= t0 + 0.2e9  # after the slowest (0.2 s) said ready
    assert got == [start_at] * 3


def test_await_start_gives_up_at_the_deadline(tmp_path: Path) -> None:
    cfg = {"ready_file": str(tmp_path / "r"), "start_file": str(tmp_path / "never")}
    deadline = time.monotonic_ns() + 50_000_000
    assert await_start(cfg, deadline) == deadline
