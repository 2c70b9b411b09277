"""Property: arbitrary bytes and token sequences give a clean error or success, never a traceback.

The compiler gets arbitrary text, arbitrary bytes (as a file, with and without includes) and
arbitrary sequences of P4 tokens (huge numbers and deep nesting included). Every ``fabemu``
command gets argv made of its own flags, hostile values and a file of arbitrary bytes, run
in-process through ``main``: an int return or ``SystemExit`` is clean, anything else fails.
Example counts are modest (seeded, derandomized) so the suite stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.cli.main import build_parser, main
from emulator.p4c import CompileError, compile_file, compile_source
from emulator.runtime import runstate

PROPERTY = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
HEADER = "#include <core.p4>\n#include <v1model.p4>\n"
P4_TOKENS = [
    "(", ")", "{", "}", "[", "]", "<", ">", ";", ",", ".", "=", "+", "-", "*", "/", "!", "~",
    "&", "|", "^", "?", ":", "@", "#",
    "<<", ">>", "==", "&&", "||", "++", "|+|", "&&&", "..",
    "bit", "int", "bool", "if", "else", "apply", "table", "action", "actions", "key", "const",
    "struct", "header", "control", "parser", "state", "transition", "select", "default",
    "return", "exit", "switch", "true", "false", "error", "extern", "typedef", "enum",
    "V1Switch", "main", "x", "hdr", "meta", "std", "_", "packet_in", "mark_to_drop",
    "0", "1", "8w255", "16w0x1", "4s7", "0b101", "9" * 50, "2049w1", "0x" + "f" * 700,
    '"s"', "#define", "#include", "#if", "#endif", "\n",
]  # fmt: skip
HOSTILE = ["-1", "0", "99999999999999999999", "nan", "1e309", "", "x", "\udcff", "a=b", "--"]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # anything a command writes lands here
    monkeypatch.setattr(runstate, "STATE_ROOT", tmp_path / "state")  # `clean` looks here


def _compiles_or_errors(fn: object, *args: object) -> None:
    try:
        fn(*args)  # type: ignore[operator]
    except CompileError as exc:
        assert exc.pos.line >= 0 and str(exc)


@PROPERTY
@given(st.text(max_size=400))
def test_compiler_on_arbitrary_text(text: str) -> None:
    _compiles_or_errors(compile_source, text, "<fuzz>")


@PROPERTY
@given(st.binary(max_size=400), st.booleans())
def test_compiler_on_arbitrary_bytes(data: bytes, with_header: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "prog.p4"
        path.write_bytes((HEADER.encode() if with_header else b"") + data)
        _compiles_or_errors(compile_file, path)


@PROPERTY
@given(st.lists(st.sampled_from(P4_TOKENS), max_size=120), st.integers(0, 400))
def test_compiler_on_token_sequences(tokens: list[str], depth: int) -> None:
    body = " ".join(tokens)
    nested = "(" * depth + body + ")" * depth
    _compiles_or_errors(compile_source, HEADER + nested, "<fuzz>")


def _options() -> dict[str, list[str]]:
    """Every subcommand and its option strings."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [o for a in p._actions for o in a.option_strings if o not in ("-h", "--help")]
        for name, p in sub.choices.items()
    }


OPTIONS = _options()
#: values that keep the analytic scaler from starting a (legitimately) long computation
SCALE_GPUS = ["0", "-1", "abc", "1e9", "", "7", "24Q"]


@st.composite
def argv_for(draw: st.DrawFn, command: str, file: str) -> list[str]:
    """``command`` + tokens: its flags, hostile values, the arbitrary-bytes file."""
    vocab = OPTIONS[command] + HOSTILE + [file]
    tokens = draw(st.lists(st.one_of(st.sampled_from(vocab), st.text(max_size=8)), max_size=6))
    if draw(st.booleans()):  # the file where most commands take their input
        tokens = [file, *tokens]
    if command == "scale":  # a hostile --gpus last: every example ends in a quick error
        return [command, *tokens, "--gpus", draw(st.sampled_from(SCALE_GPUS))]
    return [command, *tokens]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_every_command_on_hostile_argv_and_files(command: str, tmp_path: Path) -> None:
    file = str(tmp_path / "input")

    @settings(PROPERTY, max_examples=25)
    @given(st.data(), st.binary(max_size=300))
    def check(data: st.DataObject, content: bytes) -> None:
        Path(file).write_bytes(content)
        argv = data.draw(argv_for(command, file))
        with _quiet():
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: usage error or --help
                code = exc.code if isinstance(exc.code, int) else 2
        assert isinstance(code, int)

    check()
    assert os.getcwd() == str(tmp_path)
