"""Hostile input to the compiler: every failure class the fuzzer found is a positioned error.

Non-UTF-8 bytes (in the program or an include), numbers too large for their type, nesting
beyond ``MAX_NESTING`` and malformed preprocessor directives give ``file:line:col: error``
and exit 2 from ``fabemu p4c``, never a traceback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from emulator.cli.main import main
from emulator.p4c import CompileError, compile_file
from emulator.p4c.diagnostics import MAX_NESTING, MAX_WIDTH

from .p4c_helpers import PROGRAMS, ingress_program


@pytest.fixture
def prog_dir(tmp_path: Path) -> Path:
    shutil.copy(PROGRAMS / "common.p4", tmp_path / "common.p4")
    return tmp_path


def compile_error(path: Path) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_file(path)
    return info.value


def write_ingress(d: Path, body: str, decls: str = "") -> Path:
    p = d / "prog.p4"
    p.write_text(ingress_program(body, decls))
    return p


def test_non_utf8_byte_in_the_program_is_located(prog_dir: Path) -> None:
    p = prog_dir / "prog.p4"
    data = ingress_program("        hdr.ipv4.ttl = 8w1;").encode()
    line7 = data.index(b"hdr.ipv4.ttl")
    p.write_bytes(data[:line7] + b"\xff" + data[line7:])
    err = compile_error(p)
    assert (err.pos.file, err.pos.line, err.pos.col) == (str(p), 7, 9)
    assert "0xff is not UTF-8" in err.message


def test_non_utf8_byte_in_an_include_is_located(prog_dir: Path) -> None:
    common = prog_dir / "common.p4"
    common.write_bytes(b"// fine\n  \xc3\x28 bad\n" + common.read_bytes())
    err = compile_error(write_ingress(prog_dir, ""))
    assert Path(err.pos.file).name == "common.p4"
    assert (err.pos.line, err.pos.col) == (2, 3)


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("8w" + "9" * 40, "does not fit"),  # fits MAX_WIDTH, not bit<8>
        ("9" * 5000, f"larger than the limit of {MAX_WIDTH} bits"),
        ("0x" + "f" * 1000, f"larger than the limit of {MAX_WIDTH} bits"),
        ("9" * 30 + "w1", "integer width"),
        (f"{MAX_WIDTH + 1}w1", "integer width"),
        ("0x_", "malformed integer literal"),
    ],
)
def test_numbers_too_large_are_located(prog_dir: Path, literal: str, message: str) -> None:
    err = compile_error(write_ingress(prog_dir, f"        hdr.ipv4.ttl = {literal};"))
    assert (err.pos.line, err.pos.col) == (7, 24)
    assert message in err.message


@pytest.mark.parametrize(
    "body",
    [
        f"        bit<{MAX_WIDTH + 1}> x = 0;",
        "        bit<4294967296> x = 0;",
        "        const int x = 1 << 99999999999999;",
        "        hdr.ipv4.ttl = 8w1 << -1;",
    ],
)
def test_huge_widths_and_shifts_are_errors(prog_dir: Path, body: str) -> None:
    err = compile_error(write_ingress(prog_dir, body))
    assert err.pos.line == 7 and err.pos.col > 1


def test_huge_shift_of_a_typed_constant_folds_to_zero(prog_dir: Path) -> None:
    doc = compile_file(write_ingress(prog_dir, "        hdr.ipv4.ttl = 8w1 << 9999999999;"))
    assert doc["pipelines"]


NESTED = {
    "parens": lambda d: "hdr.ipv4.ttl = " + "(" * d + "8w1" + ")" * d + ";",
    "unary": lambda d: "hdr.ipv4.ttl = " + "-" * d + "8w1;",
    "chain": lambda d: "hdr.ipv4.ttl = " + "8w1 + " * d + "8w1;",
    "casts": lambda d: "hdr.ipv4.ttl = " + "(bit<8>)" * d + "8w1;",
    "blocks": lambda d: "{" * d + "}" * d,
    "ifs": lambda d: "if (true) " * d + ";",
    "else_ifs": lambda d: "if (true) {} " + "else if (true) {} " * d,
}


@pytest.mark.parametrize("form", sorted(NESTED))
def test_nesting_beyond_the_limit_is_located(prog_dir: Path, form: str) -> None:
    err = compile_error(write_ingress(prog_dir, NESTED[form](MAX_NESTING * 50)))
    assert err.pos.line == 7 and err.pos.col > 0
    assert f"limit of {MAX_NESTING} levels" in err.message


@pytest.mark.parametrize("form", sorted(NESTED))
def test_nesting_within_the_limit_compiles(prog_dir: Path, form: str) -> None:
    assert compile_file(write_ingress(prog_dir, NESTED[form](MAX_NESTING - 5)))["pipelines"]


@pytest.mark.parametrize(
    "directive",
    ["#ifdef", "#undef", "#define", "#if", '#include "nosuch.p4"', '#include "'],
)
def test_malformed_directives_are_located(prog_dir: Path, directive: str) -> None:
    p = prog_dir / "prog.p4"
    p.write_text("// line 1\n" + directive + "\n#endif\n" + ingress_program(""))
    err = compile_error(p)
    assert (err.pos.file, err.pos.line) == (str(p), 2)


def test_cli_prints_the_diagnostic_and_exits_2(
    prog_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = prog_dir / "prog.p4"
    p.write_bytes(b"\x80" + ingress_program("").encode())
    assert main(["p4c", str(p), "-o", str(prog_dir / "out.json")]) == 2
    err = capsys.readouterr().err
    assert f"{p}:1:1: error:" in err and "Traceback" not in err
