"""Attacks on the run state that root's ``fabemu clean`` acts on, each refused (no root needed).

A planted record (foreign owner, group/world-writable, no start time, PID -1, foreign link
names), a symlinked lock or record file, a foreign-owned state directory. "Foreign owner" is
simulated by making fabemu trust another uid (``statedir.trusted_uid``).
"""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.cli.main import main
from emulator.runtime import clean, runstate, statedir
from emulator.runtime.runstate import RunState, proc_start_time, same_process, scan_runs
from emulator.runtime.statedir import UnsafeStateError, take_run_lock


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    r = tmp_path / "state"
    monkeypatch.setattr(runstate, "STATE_ROOT", r)
    return r


@pytest.fixture
def victim() -> Iterator[subprocess.Popen[bytes]]:
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield p
    p.kill()
    p.wait()


def planted(victim: subprocess.Popen[bytes], **fields: object) -> RunState:
    """A stale record (dead owner) naming ``victim`` with its true start time."""
    st = RunState.create("planted")
    st.pids = [{"pid": victim.pid, "start": proc_start_time(victim.pid), "what": "victim"}]
    st.owner_pid, st.owner_start = 2**22 + 7, 1  # no such process
    for k, v in fields.items():
        setattr(st, k, v)
    st.save()
    return st


def test_created_state_is_private(root: Path) -> None:
    st = RunState.create("r1")
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(st.path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(st.path).st_mode) & 0o077 == 0


def test_the_default_lives_under_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABEMU_STATE_DIR", raising=False)
    assert statedir.default_root() == Path("/run/fabemu")


def test_a_trusted_stale_record_is_cleaned(root: Path, victim: subprocess.Popen[bytes]) -> None:
    planted(victim)
    stale, refused = scan_runs()
    assert refused == [] and len(stale) == 1
    assert stale[0].cleanup(grace_s=2) == [f"killed victim (pid {victim.pid})"]
    assert victim.wait(timeout=10) != 0  # the control: a record we trust does act


def test_foreign_owned_record_is_refused(
    root: Path, victim: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(victim)
    os.chmod(root, 0o700)
    monkeypatch.setattr(statedir, "trusted_uid", lambda: os.geteuid() + 1)
    with pytest.raises(UnsafeStateError, match="owned by uid"):
        scan_runs()  # the directory itself is someone else's
    assert main(["clean"]) == 2
    assert victim.poll() is None


@pytest.mark.parametrize("what", ["dir", "file"])
def test_group_or_world_writable_record_is_refused(
    root: Path, victim: subprocess.Popen[bytes], what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    st = planted(victim)
    os.chmod(st.path.parent if what == "dir" else st.path, 0o777 if what == "dir" else 0o666)
    stale, refused = scan_runs()
    assert stale == [] and "writable by group or others" in refused[0]
    assert clean.run(argparse.Namespace(dry_run=False)) == 0
    assert "refused" in capsys.readouterr().out
    assert victim.poll() is None and st.path.exists()


def test_symlinked_record_is_refused(root: Path, tmp_path: Path) -> None:
    d = root / "r2"
    RunState.create("r2").path.unlink()
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"owner_pid": 99999999, "pids": [], "links": ["eth0"]}')
    (d / "state.json").symlink_to(outside)
    stale, refused = scan_runs()
    assert stale == [] and "a symlink" in refused[0]


def test_symlinked_run_dir_is_refused(root: Path, tmp_path: Path) -> None:
    RunState.create("real")
    (root / "link").symlink_to(root / "real")
    assert any("link: refusing" in r and "not a directory" in r for r in scan_runs()[1])


def test_symlinked_state_root_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "state").symlink_to(tmp_path / "real")
    monkeypatch.setattr(runstate, "STATE_ROOT", tmp_path / "state")
    with pytest.raises(UnsafeStateError, match="not a directory"):
        RunState.create("r")


def test_a_record_without_start_time_matches_nothing(
    root: Path, victim: subprocess.Popen[bytes]
) -> None:
    st = planted(victim)
    st.pids = [{"pid": victim.pid, "what": "victim"}, {"pid": victim.pid, "start": None}]
    st.save()
    assert runstate.stale_runs()[0].cleanup(grace_s=0.1) == []
    assert victim.poll() is None


@pytest.mark.parametrize("pid", [-1, 0, 1, True, "123", 1.5, None])
def test_pids_that_are_not_one_process_never_match(pid: object) -> None:
    start = proc_start_time(1)
    assert not same_process(pid, start)
    assert not same_process(os.getpid(), None)
    assert same_process(os.getpid(), proc_start_time(os.getpid()))


def test_only_fabemu_link_names_are_deleted(
    root: Path, victim: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    deleted: list[str] = []
    monkeypatch.setattr(runstate, "delete_link", lambda n: deleted.append(n) or True)
    names = ["eth0", "lo", "docker0", "rtsw0-eth1x", "h0-eth0", "rtsw0-eth1", "ctsw12-eth3"]
    planted(victim, pids=[], links=names)
    out = runstate.stale_runs()[0].cleanup(grace_s=0.1)
    assert deleted == ["rtsw0-eth1", "ctsw12-eth3"]
    assert sum("refused to delete link" in line for line in out) == 5


def test_symlinked_lock_is_refused_and_target_untouched(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me")
    statedir.ensure_dir(root)
    (root / "mininet.lock").symlink_to(target)
    with pytest.raises(UnsafeStateError, match="a symlink"):
        take_run_lock(root, "mininet.lock", 0.1)
    assert target.read_text() == "keep me"


def test_foreign_lock_file_is_refused(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.close(take_run_lock(root, "mininet.lock", 0.1))
    os.chmod(root / "mininet.lock", 0o666)
    with pytest.raises(UnsafeStateError, match="writable by group or others"):
        take_run_lock(root, "mininet.lock", 0.1)


def test_saving_through_a_planted_tmp_symlink_does_not_write_the_target(
    root: Path, tmp_path: Path
) -> None:
    st = RunState.create("r3")
    target = tmp_path / "precious"
    target.write_text("keep me")
    st.path.with_suffix(".tmp").symlink_to(target)
    st.add_links(["rtsw0-eth1"])
    assert target.read_text() == "keep me"
    assert RunState.load(st.path).links == ["rtsw0-eth1"]


@pytest.mark.parametrize(
    "text",
    ["[]", '{"owner_pid": "1"}', '{"owner_pid": 5, "pids": [3]}', '{"owner_pid": 5, "links": [1]}'],
)
def test_malformed_records_are_refused(root: Path, text: str) -> None:
    st = RunState.create("bad")
    st.path.write_text(text)
    assert scan_runs()[0] == [] and len(scan_runs()[1]) == 1
