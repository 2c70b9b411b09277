"""Run records and ``fabemu clean`` without root: stale detection, kill by PID + start time."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.runtime import clean, runstate
from emulator.runtime.runstate import RunState, proc_start_time, same_process, stale_runs


@pytest.fixture
def state_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(runstate, "STATE_ROOT", tmp_path)
    return tmp_path


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_live_owner_is_not_stale(state_root: Path) -> None:
    st = RunState.create("live")
    assert st.owner_alive() and stale_runs() == []
    assert json.loads((state_root / "live" / "state.json").read_text())["owner_pid"] > 0


def test_stale_run_processes_are_killed_and_record_removed(state_root: Path, capsys) -> None:
    st = RunState.create("dead")
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        st.add_pid(victim.pid, "fake switch")
        st.add_links(["rtsw999-eth9"])  # absent: deleting it is a no-op
        st.owner_pid, st.owner_start = _dead_pid(), None
        st.save()
        (state_root / "dead" / "files").mkdir()
        (state_root / "dead" / "files" / "sw.log").write_text("log")
        assert [s.path.parent.name for s in stale_runs()] == ["dead"]
        assert clean.run(argparse.Namespace(dry_run=True)) == 0
        assert "would clean" in capsys.readouterr().out and victim.poll() is None
        assert clean.run(argparse.Namespace(dry_run=False)) == 0
        out = capsys.readouterr().out
        assert f"killed fake switch (pid {victim.pid})" in out
        assert victim.wait(timeout=10) != 0
        assert not (state_root / "dead").exists()
        assert clean.run(argparse.Namespace(dry_run=False)) == 0
        assert "nothing to clean" in capsys.readouterr().out
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()


def test_reused_pid_is_never_killed(state_root: Path) -> None:
    st = RunState.create("reuse")
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        start = proc_start_time(bystander.pid)
        assert start is not None and same_process(bystander.pid, start)
        # recorded with another start time: the PID now belongs to someone else
        st.pids.append({"pid": bystander.pid, "start": start - 1, "what": "old switch"})
        st.owner_pid, st.owner_start = _dead_pid(), None
        st.save()
        assert stale_runs()[0].cleanup(grace_s=0.1) == []
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def test_garbage_records_are_ignored(state_root: Path) -> None:
    (state_root / "junk").mkdir()
    (state_root / "junk" / "state.json").write_text("{not json")
    assert stale_runs() == []
