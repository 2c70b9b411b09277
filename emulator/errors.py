"""Errors that are the user's fault: the CLI prints them without a traceback and exits 2."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """Bad input from the user (program, scenario, topology, command); message is user-facing."""

    exit_code = 2


def bad_utf8_position(data: bytes, exc: UnicodeDecodeError) -> tuple[int, int]:
    """1-based (line, column) of the first byte ``exc`` could not decode (column in bytes)."""
    before = data[: exc.start]
    return before.count(b"\n") + 1, exc.start - (before.rfind(b"\n") + 1) + 1


def read_text(path: str | Path, what: str, error: type[UserError] = UserError) -> str:
    """Read a UTF-8 text file the user named; an unreadable or non-UTF-8 file is ``error``
    naming the file (and the line:column of the first bad byte)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = bad_utf8_position(raw, exc)
        raise error(
            f"{path}:{line}:{col}: byte 0x{raw[exc.start]:02x} is not UTF-8 "
            f"(a {what} must be UTF-8 text)"
        ) from None
