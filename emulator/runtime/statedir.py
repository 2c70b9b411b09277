"""The run-state directory (``/run/fabemu``): nothing in it is trusted unless root wrote it.

``fabemu clean`` runs as root and acts on what it reads there (kills PIDs, deletes links),
and the Mininet run lock lives there, so:

- the directory is created mode 0700 by the user running fabemu (root, for Mininet runs);
  an existing one must be a real directory (not a symlink), owned by that user and not
  writable by group or others, or fabemu refuses to use it;
- record and lock files are opened with ``O_NOFOLLOW`` and checked the same way on the open
  descriptor (``fstat``), so a planted symlink or a file swapped in between is refused.

``FABEMU_STATE_DIR`` moves the directory (tests, experiments without root).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from pathlib import Path

from emulator.errors import UserError

DEFAULT_DIR = "/run/fabemu"


def default_root() -> Path:
    """Where run state lives: ``$FABEMU_STATE_DIR`` or ``/run/fabemu``."""
    return Path(os.environ.get("FABEMU_STATE_DIR") or DEFAULT_DIR)


def trusted_uid() -> int:
    """The only owner whose run state is trusted: the user running fabemu (root in practice)."""
    return os.geteuid()


class UnsafeStateError(UserError):
    """A run-state directory or file that someone else could have written."""


def why_unsafe(st: os.stat_result, want_dir: bool) -> str | None:
    """Why a directory/file with this status must not be trusted (None: it may be)."""
    if want_dir and not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not want_dir and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != trusted_uid():
        return f"owned by uid {st.st_uid}, not {trusted_uid()}"
    if st.st_mode & 0o022:
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def check_dir(path: Path) -> None:
    """Refuse ``path`` unless it is a trusted directory (a symlink is refused, not followed)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise UnsafeStateError(f"run state {path}: {exc.strerror}") from None
    why = why_unsafe(st, want_dir=True)
    if why:
        raise UnsafeStateError(f"refusing run state directory {path}: {why}")


def ensure_dir(path: Path) -> Path:
    """Create ``path`` (mode 0700) if missing, then check it is trusted."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    check_dir(path)
    return path


def open_checked(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` without following a symlink; the file must be trusted (fd returned)."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeStateError(f"refusing run state file {path}: a symlink") from None
        raise
    why = why_unsafe(os.fstat(fd), want_dir=False)
    if why:
        os.close(fd)
        raise UnsafeStateError(f"refusing run state file {path}: {why}")
    return fd


def take_run_lock(root: Path, name: str, wait_s: float) -> int:
    """Wait (bounded) for the machine-wide Mininet run lock ``root/name``; return its fd.

    Two runs of fabrics with the same interface names would clobber each other (Mininet
    deletes a same-named interface before creating its own), so Mininet runs take turns.
    Closing the fd releases the lock; it is not inherited by children and the kernel drops
    it when the holder dies. Only the trusted user can open the file (the directory is 0700).
    """
    path = ensure_dir(root) / name
    fd = open_checked(path, os.O_RDWR | os.O_CREAT)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise UserError(
                    f"another Mininet run held {path} for {wait_s:g} s; wait for it to finish"
                ) from None
            time.sleep(0.2)
