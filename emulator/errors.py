"""Errors that are the user's fault: the CLI prints them without a traceback and exits 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user (program, scenario, topology, command); message is user-facing."""

    exit_code = 2


def bad_utf8_position(data: bytes, exc: UnicodeDecodeError) -> tuple[int, int]:
    """1-based (line, column) of the first byte ``exc`` could not decode (column in bytes)."""
    before = data[: exc.start]
    return before.count(b"\n") + 1, exc.start - (before.rfind(b"\n") + 1) + 1
