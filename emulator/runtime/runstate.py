"""What a Mininet run created, on disk, so ``fabemu clean`` can undo a killed run.

Each run owns ``STATE_ROOT/<run id>/state.json``::

    {"owner_pid": 1234, "owner_start": <starttime of 1234 from /proc>,
     "pids": [{"pid": 5678, "start": <starttime>, "what": "switch rtsw0"}, ...],
     "links": ["rtsw0-eth1", ...]}      # root-namespace interfaces (switch side of veths)

Processes are recorded with their kernel start time (``/proc/<pid>/stat`` field 22), so a
PID reused by an unrelated process is never touched; an entry without a start time matches
nothing. Host namespaces are Mininet's (unnamed, held by the host shells and the processes
in them): killing those PIDs frees them, and deleting a veth end removes its peer. Only
links with fabemu's own names (:func:`emulator.runtime.links.is_fabemu_link`) are deleted.

``STATE_ROOT`` is ``/run/fabemu`` (or ``$FABEMU_STATE_DIR``); records whose directory or
file is not the running user's, or is writable by others, are refused
(:mod:`emulator.runtime.statedir`).
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

from emulator.runtime.links import delete_link, is_fabemu_link
from emulator.runtime.statedir import (
    UnsafeStateError,
    check_dir,
    default_root,
    ensure_dir,
    open_checked,
)

STATE_ROOT = default_root()
RECORD = "state.json"


def proc_start_time(pid: int) -> int | None:
    """Kernel start time (clock ticks since boot) of ``pid``, or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may contain spaces: split after its closing parenthesis
    rest = stat[stat.rfind(")") + 2 :].split()
    return int(rest[19])  # field 22 overall


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def same_process(pid: object, start: object) -> bool:
    """True if ``pid`` is alive and is the very process recorded (same start time).

    A missing start time, or a PID that is not a plain process (0, 1, negative: process
    groups or everything), never matches."""
    if not (_is_int(pid) and _is_int(start)) or pid <= 1:  # type: ignore[operator]
        return False
    return proc_start_time(pid) == start  # type: ignore[arg-type]


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
        """Start the record of a new run owned by this process (directories mode 0700)."""
        d = ensure_dir(STATE_ROOT) / run_id
        ensure_dir(d)
        st = cls(d / RECORD, owner_start=proc_start_time(os.getpid()))
        st.save()
        return st

    @classmethod
    def load(cls, path: Path) -> RunState:
        """Read a record: UnsafeStateError if someone else could have written it, ValueError
        if it is not a well-formed record."""
        check_dir(path.parent)
        fd = open_checked(path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(1 << 20))
        if not isinstance(data, dict) or not _is_int(data.get("owner_pid")):
            raise ValueError("not a run record")
        pids, links = data.get("pids", []), data.get("links", [])
        if not (isinstance(pids, list) and all(isinstance(p, dict) for p in pids)):
            raise ValueError("pids: not a list of entries")
        if not (isinstance(links, list) and all(isinstance(n, str) for n in links)):
            raise ValueError("links: not a list of names")
        return cls(path, data["owner_pid"], data.get("owner_start"), pids, links)

    def save(self) -> None:
        """Write the record atomically (a new mode-0600 file, never through a symlink)."""
        tmp = self.path.with_suffix(".tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        text = json.dumps(
            {"owner_pid": self.owner_pid, "owner_start": self.owner_start,
             "pids": self.pids, "links": self.links}, indent=1,
        )  # fmt: skip
        fd = open_checked(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
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
        alive = [p for p in self.pids if same_process(p.get("pid"), p.get("start"))]
        for p in alive:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p["pid"], signal.SIGTERM)
        _wait_gone(alive, grace_s)
        for p in alive:
            if same_process(p["pid"], p.get("start")):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p["pid"], signal.SIGKILL)
            done.append(f"killed {p.get('what', 'a process')} (pid {p['pid']})")
        _wait_gone(alive, grace_s)  # SIGKILL is not instant: return when they are gone
        for name in self.links:
            if not is_fabemu_link(name):
                done.append(f"refused to delete link {name!r}: not a fabemu interface name")
            elif delete_link(name):
                done.append(f"deleted link {name}")
        shutil.rmtree(self.path.parent, ignore_errors=True)  # record + run files (logs)
        return done


def _wait_gone(procs: list[dict[str, Any]], timeout_s: float) -> None:
    """Until none of ``procs`` exists any more, at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(
        same_process(p["pid"], p.get("start")) for p in procs
    ):
        time.sleep(0.05)


def scan_runs() -> tuple[list[RunState], list[str]]:
    """Records whose owner process is gone (what ``fabemu clean`` removes), and the refused
    ones (``path: why``). UnsafeStateError if the state directory itself is not trusted."""
    root = STATE_ROOT
    if not os.path.lexists(root):
        return [], []
    check_dir(root)
    stale: list[RunState] = []
    refused: list[str] = []
    for name in sorted(os.listdir(root)):
        d = root / name
        if not d.is_dir():
            continue  # the lock file: not a run
        try:
            st = RunState.load(d / RECORD)
        except FileNotFoundError:
            continue  # a run still creating its record
        except (UnsafeStateError, OSError, ValueError, KeyError) as exc:
            refused.append(f"{d}: {exc}")
            continue
        if not st.owner_alive():
            stale.append(st)
    return stale, refused


def stale_runs() -> list[RunState]:
    """The trusted records whose owner process is gone."""
    return scan_runs()[0]
