"""What a Mininet run created, on disk, so ``fabemu clean`` can undo a killed run.

Each run owns ``STATE_ROOT/<run id>/state.json``::

    {"owner_pid": 1234, "owner_start": <starttime of 1234 from /proc>,
     "pids": [{"pid": 5678, "start": <starttime>, "what": "switch rtsw0"}, ...],
     "links": ["rtsw0-eth1", ...]}      # root-namespace interfaces (switch side of veths)

Processes are recorded with their kernel start time (``/proc/<pid>/stat`` field 22), so a
PID reused by an unrelated process is never touched. Host namespaces are Mininet's
(unnamed, held by the host shells and the processes in them): killing those PIDs frees them,
and deleting a veth end removes its peer.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.runtime.links import delete_link

STATE_ROOT = Path(os.environ.get("FABEMU_STATE_DIR", "/tmp/fabemu-runs"))


def proc_start_time(pid: int) -> int | None:
    """Kernel start time (clock ticks since boot) of ``pid``, or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may contain spaces: split after its closing parenthesis
    rest = stat[stat.rfind(")") + 2 :].split()
    return int(rest[19])  # field 22 overall


def same_process(pid: int, start: int | None) -> bool:
    """True if ``pid`` is alive and is the very process recorded (same start time)."""
    now = proc_start_time(pid)
    return now is not None and (start is None or now == start)


@dataclass
class RunState:
    """The record of one run; saved after every change."""

    path: Path
    owner_pid: int = field(default_factory=os.getpid)
    owner_start: int | None = None
    pids: list[dict[str, Any]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, run_id: str) -> RunState:
        """Start the record of a new run owned by this process."""
        d = STATE_ROOT / run_id
        d.mkdir(parents=True, exist_ok=True)
        st = cls(d / "state.json", owner_start=proc_start_time(os.getpid()))
        st.save()
        return st

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read a record (ValueError if it is not one)."""
        data = json.loads(path.read_text())
        return cls(
            path,
            owner_pid=int(data["owner_pid"]),
            owner_start=data.get("owner_start"),
            pids=list(data.get("pids", [])),
            links=list(data.get("links", [])),
        )

    def save(self) -> None:
        """Write the record atomically."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {"owner_pid": self.owner_pid, "owner_start": self.owner_start,
                 "pids": self.pids, "links": self.links}, indent=1,
            )
        )  # fmt: skip
        tmp.replace(self.path)

    def add_pid(self, pid: int, what: str) -> None:
        """Record a process we started (or a Mininet host shell)."""
        self.pids.append({"pid": pid, "start": proc_start_time(pid), "what": what})
        self.save()

    def add_links(self, names: list[str]) -> None:
        """Record root-namespace interfaces we created."""
        self.links.extend(n for n in names if n not in self.links)
        self.save()

    def owner_alive(self) -> bool:
        """Whether the process that owns this run is still running."""
        return same_process(self.owner_pid, self.owner_start)

    def cleanup(self, grace_s: float = 2.0) -> list[str]:
        """Kill the recorded processes (by PID), delete the recorded links, drop the record."""
        done: list[str] = []
        alive = [p for p in self.pids if same_process(p["pid"], p.get("start"))]
        for p in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p["pid"], signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and any(
            same_process(p["pid"], p.get("start")) for p in alive
        ):
            time.sleep(0.05)
        for p in alive:
            if same_process(p["pid"], p.get("start")):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p["pid"], signal.SIGKILL)
            done.append(f"killed {p['what']} (pid {p['pid']})")
        for name in self.links:
            if delete_link(name):
                done.append(f"deleted link {name}")
        shutil.rmtree(self.path.parent, ignore_errors=True)  # record + run files (logs)
        return done


def stale_runs() -> list[RunState]:
    """Records whose owner process is gone (what ``fabemu clean`` removes)."""
    out = []
    for path in sorted(STATE_ROOT.glob("*/state.json")):
        try:
            st = RunState.load(path)
        except (OSError, ValueError, KeyError):
            continue
        if not st.owner_alive():
            out.append(st)
    return out
