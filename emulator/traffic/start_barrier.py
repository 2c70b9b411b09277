"""A start barrier for RNIC processes: no host starts its ranks before every one listens.

    runtime                                  each rnic_process
    start the processes (config: start_file) open the socket, write <out>.ready
    release(): wait for every .ready ──────► wait for start_file (bounded)
    write start_file = start_at_ns (rename)  start the ranks at start_at_ns

A frame sent to a host whose process is still starting is lost (nothing reads its
interface yet); on a loaded machine a fixed delay is not enough.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def ready_file(out: str | Path) -> str:
    """The file a process writes once it listens (next to its report ``out``)."""
    return f"{out}.ready"


def await_start(cfg: Mapping[str, Any], deadline_ns: int) -> int:
    """Say ready, then wait for the start file (bounded by ``deadline_ns``); start_at_ns."""
    Path(cfg["ready_file"]).write_text("ready")
    start = Path(cfg["start_file"])
    while time.monotonic_ns() < deadline_ns:
        try:
            return int(start.read_text())
        except (OSError, ValueError):  # not there yet (it is written by a rename)
            time.sleep(0.01)
    return deadline_ns


def release(
    waiting: Iterable[tuple[Path, subprocess.Popen[bytes]]],
    start_file: Path,
    not_before_ns: int = 0,
    lead_ns: int = 200_000_000,
    timeout_s: float = 120.0,
) -> int:
    """Wait (bounded) until every (ready file, process) is ready or exited, then start them
    all at ``not_before_ns`` (CLOCK_MONOTONIC) or ``lead_ns`` from now, whichever is later;
    returns that start_at_ns."""
    deadline = time.monotonic() + timeout_s
    for ready, proc in waiting:
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    start_at = max(not_before_ns, time.monotonic_ns() + lead_ns)
    tmp = start_file.with_suffix(".tmp")
    tmp.write_text(str(start_at))
    tmp.replace(start_file)  # atomic: a reader sees all of it or nothing
    return start_at
