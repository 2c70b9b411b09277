"""Compiler diagnostics: source positions and the ``CompileError`` users see.

A message reads ``file:line:col: error: message`` followed by the offending source line
and a caret under the column, like p4c.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from emulator.errors import UserError, bad_utf8_position


@dataclass(frozen=True)
class Pos:
    """A position in an original (pre-preprocessing) source file; line and col are 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Pos("<unknown>", 0, 0)

#: the stated limits (beyond them: a diagnostic, not a crash)
MAX_NESTING = 100  # nested expressions, operator chains, blocks, 'if's and type arguments
MAX_WIDTH = 2048  # bits of a bit<W>/int<W> type, a literal's width prefix or its value

#: file name -> text, for showing the source line under a message
_SOURCES: dict[str, str] = {}


def remember_source(name: str, text: str) -> None:
    """Keep a file's text so diagnostics can quote its lines."""
    _SOURCES[name] = text


def end_of(file: str) -> Pos:
    """The position after the last line of ``file`` (for "missing X" errors)."""
    text = _SOURCES.get(file, "")
    lines = text.splitlines()
    return Pos(file, max(1, len(lines)), len(lines[-1]) + 1 if lines else 1)


def _source_line(pos: Pos) -> str | None:
    text = _SOURCES.get(pos.file)
    if text is None:
        try:
            text = Path(pos.file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        _SOURCES[pos.file] = text
    lines = text.splitlines()
    if 1 <= pos.line <= len(lines):
        return lines[pos.line - 1]
    return None


class CompileError(UserError):
    """A P4 program error at a source position (syntax, type, or unsupported feature)."""

    def __init__(self, pos: Pos, message: str) -> None:
        self.pos = pos
        self.message = message
        super().__init__(self._render())

    def _render(self) -> str:
        head = f"{self.pos}: error: {self.message}"
        line = _source_line(self.pos) if self.pos.line > 0 else None
        if line is None:
            return head
        caret = " " * max(self.pos.col - 1, 0) + "^"
        return f"{head}\n{line.rstrip()}\n{caret}"


class BackendLimit(CompileError):
    """Valid P4 that p4c-bm2-ss's back end cannot turn into BMv2 JSON (e.g. ``x % 7``).

    p4c removes unused actions before its back end runs, so an action no table uses and
    no code calls may hold such code; fabemu skips that action instead of refusing it."""


def decode_source(data: bytes, name: str) -> str:
    """Decode a source file as UTF-8; a bad byte is a CompileError at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CompileError(
            Pos(name, *bad_utf8_position(data, exc)),
            f"byte 0x{data[exc.start]:02x} is not UTF-8 (P4 source must be UTF-8 text)",
        ) from None


def read_source(path: str, where: Pos | None = None) -> str:
    """Read and decode a source file (CompileError if it cannot be read or is not UTF-8)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CompileError(
            where or Pos(path, 0, 0), f"cannot read {path}: {exc.strerror}"
        ) from None
    return decode_source(data, path)


def error(pos: Pos, message: str) -> CompileError:
    """Build a CompileError (callers ``raise error(...)``)."""
    return CompileError(pos, message)
