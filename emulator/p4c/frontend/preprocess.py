"""C-style preprocessing (``#include``, ``#define``, ``#if``) with a line map back to the sources.

pcpp does the work; its ``#line`` markers are stripped from the output and turned into a
per-output-line map so every later diagnostic points at the original ``file:line``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pcpp

from emulator.p4c.diagnostics import CompileError, Pos, decode_source, remember_source

#: where core.p4 and v1model.p4 live
INCLUDE_DIR = Path(__file__).resolve().parents[1] / "include"

_LINE_RE = re.compile(r'^\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?')


@dataclass(frozen=True)
class Preprocessed:
    """Preprocessed text plus, per output line (0-based), the original (file, line)."""

    text: str
    line_map: tuple[tuple[str, int], ...]
    #: every file the preprocessor opened for an ``#include`` (resolved paths, in order)
    files: tuple[str, ...] = ()

    def pos(self, line: int, col: int) -> Pos:
        """Map a 1-based output line/column to the original source position."""
        if 1 <= line <= len(self.line_map):
            f, orig = self.line_map[line - 1]
            return Pos(f, orig, col)
        return Pos(self.line_map[-1][0] if self.line_map else "<string>", line, col)


class _Pre(pcpp.Preprocessor):
    def __init__(self) -> None:
        super().__init__()
        self.errors: list[tuple[str, int, str]] = []
        self.line_directive = "#line"
        self.compress = 0
        self.opened: list[str] = []

    def on_error(self, file: str, line: int, msg: str) -> None:
        self.errors.append((file, line, msg))

    def where(self) -> tuple[str, int]:
        """(file, line) of the directive being processed, as far as pcpp tells."""
        tok = getattr(self, "lastdirective", None)
        return str(getattr(tok, "source", "") or ""), int(getattr(tok, "lineno", 0) or 0)

    def on_include_not_found(
        self, is_malformed: bool, is_system_include: bool, curdir: str, includepath: str
    ) -> None:
        self.errors.append((*self.where(), f"cannot find include file {includepath}"))
        raise pcpp.OutputDirective(pcpp.Action.IgnoreAndRemove)

    def on_file_open(self, is_system_include: bool, includepath: str) -> io.StringIO:
        text = decode_source(Path(includepath).read_bytes(), includepath)  # OSError: next dir
        remember_source(includepath, text)
        self.opened.append(str(Path(includepath).resolve()))
        return io.StringIO(blank_comments(text))


_COMMENT_RE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def blank_comments(text: str) -> str:
    """Replace comments by spaces (keeping newlines) so lines and columns stay put."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith('"'):
            return s
        return re.sub(r"[^\n]", " ", s)

    return _COMMENT_RE.sub(repl, text)


def _define_arg(name: str, value: str | None) -> str:
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise CompileError(Pos("<command line>", 0, 0), f"bad macro name {name!r}")
    return f"{name} {value if value is not None else '1'}"


def _original_name(reported: str, main: str) -> str:
    """pcpp reports paths relative to the working directory: map the main file back."""
    if reported == main:
        return main
    try:
        if Path(reported).resolve() == Path(main).resolve():
            return main
        return str(Path(reported).resolve())
    except OSError:
        return reported


def preprocess(
    text: str,
    filename: str,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> Preprocessed:
    """Run the preprocessor over ``text`` (named ``filename``) and build the line map."""
    remember_source(filename, text)
    pre = _Pre()
    parent = Path(filename).parent if filename and not filename.startswith("<") else None
    if parent is not None:
        pre.add_path(str(parent))
    for d in include_dirs:
        pre.add_path(str(d))
    pre.add_path(str(INCLUDE_DIR))
    pre.define("__P4C__ 1")
    pre.define("__TARGET_BMV2__ 1")
    pre.define("__p4c__ 1")
    for name, value in (defines or {}).items():
        pre.define(_define_arg(name, value))
    try:
        pre.parse(blank_comments(text), source=filename)
        out = io.StringIO()
        pre.write(out)
    except CompileError:
        raise
    except Exception as exc:  # pcpp failing on malformed input: blame the directive
        pre.errors.insert(0, (*pre.where(), f"malformed directive ({type(exc).__name__}: {exc})"))
    if pre.errors:
        f, line, msg = pre.errors[0]
        f = _original_name(f, filename) if f else filename
        raise CompileError(Pos(f, line or 1, 1), f"preprocessor: {msg.strip()}")
    lines_out: list[str] = []
    line_map: list[tuple[str, int]] = []
    cur_file, cur_line = filename, 1
    for raw in out.getvalue().split("\n"):
        m = _LINE_RE.match(raw)
        if m:
            cur_line = int(m.group(1))
            if m.group(2) is not None:
                cur_file = _original_name(m.group(2), filename)
            continue
        if raw.lstrip().startswith("#"):
            # unknown directive passed through (e.g. #pragma): keep it out of the token stream
            raw = ""
        lines_out.append(raw)
        line_map.append((cur_file, cur_line))
        cur_line += 1
    return Preprocessed("\n".join(lines_out), tuple(line_map), tuple(pre.opened))
