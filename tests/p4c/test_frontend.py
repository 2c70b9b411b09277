"""Preprocessor, lexer, constant folding and CLI tests (plus hypothesis properties)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.cli.main import main as fabemu
from emulator.p4c import CompileError, compile_source
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.constfold import fold_binary, wrap
from emulator.p4c.frontend.preprocess import preprocess
from emulator.p4c.frontend.values import hexstr
from emulator.p4c.lowering.parser_blocks import range_to_masks

from .p4c_helpers import compile_ingress, table


def test_preprocessor_line_map_through_comments_and_macros() -> None:
    src = "#define W 8\n/* two\n   lines */\n#ifdef W\nconst bit<W> a = 1;\n#else\nnope\n#endif\n"
    pre = preprocess(src, "m.p4")
    lines = pre.text.split("\n")
    i = next(n for n, x in enumerate(lines) if "const" in x)
    assert "bit<8>" in lines[i]
    assert pre.line_map[i] == ("m.p4", 5)
    assert "nope" not in pre.text


def test_defines_and_include_dirs(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "consts.p4").write_text("const bit<9> PORT = OUT;\n")
    body = "        std.egress_spec = PORT;"
    from .p4c_helpers import ingress_program

    text = '#include "consts.p4"\n' + ingress_program(body)
    from emulator.p4c.frontend.preprocess import INCLUDE_DIR  # noqa: F401

    doc = compile_source(
        text,
        str(tmp_path / "x.p4"),
        include_dirs=[inc, Path(__file__).parent / "programs"],
        defines={"OUT": "7"},
    )
    prims = [p for a in doc["actions"] for p in a["primitives"]]
    assert prims[0]["parameters"][1] == {"type": "hexstr", "value": "0x0007"}
    with pytest.raises(CompileError):
        compile_source(
            text, str(tmp_path / "x.p4"), include_dirs=[inc, Path(__file__).parent / "programs"]
        )


def test_sub_control_is_inlined_with_prefixed_names() -> None:
    decls = """
    action noop() { }
    """
    text_decls = decls
    doc = compile_ingress("        sub.apply(hdr, std);", text_decls + "    Sub() sub;")
    assert table(doc, "MyIngress.sub.t")["key"][0]["target"] == ["ipv4", "ttl"]


def test_exit_and_bool_metadata_condition() -> None:
    doc = compile_ingress("        if (meta.flag) { exit; }\n        std.egress_spec = 9w1;")
    cond = doc["pipelines"][0]["conditionals"][0]
    assert cond["expression"]["value"]["op"] == "d2b"
    assert cond["true_next"] is None


@given(st.integers(0, 255), st.integers(0, 255))
def test_range_to_masks_covers_exactly(a: int, b: int) -> None:
    lo, hi = min(a, b), max(a, b)
    masks = range_to_masks(lo, hi, 8)
    covered = {v for v in range(256) if any((v & m) == (val & m) for val, m in masks)}
    assert covered == set(range(lo, hi + 1))


@given(st.integers(-(2**40), 2**40), st.integers(1, 64), st.booleans())
def test_wrap_stays_in_range(v: int, w: int, signed: bool) -> None:
    if signed and w < 2:
        w = 2
    t = T.Bits(w, signed)
    r = wrap(v, t)
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    assert lo <= r <= hi
    assert (r - v) % (1 << w) == 0


@given(st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1))
def test_saturating_ops(a: int, b: int) -> None:
    t = T.Bits(16)
    assert fold_binary("|+|", a, b, t) == min(a + b, 2**16 - 1)
    assert fold_binary("|-|", a, b, t) == max(a - b, 0)
    assert fold_binary("+", a, b, t) == (a + b) % 2**16


@given(st.integers(0, 2**64), st.integers(1, 64))
def test_hexstr_is_byte_padded(v: int, w: int) -> None:
    s = hexstr(v & ((1 << w) - 1), w)
    assert s.startswith("0x") and len(s) - 2 == 2 * ((w + 7) // 8)
    assert int(s, 16) == v & ((1 << w) - 1)


def test_cli_writes_json_and_reports_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prog = Path(__file__).parent / "programs" / "lpm_router.p4"
    out = tmp_path / "r.json"
    assert fabemu(["p4c", str(prog), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["pipelines"][0]["name"] == "ingress"
    bad = tmp_path / "bad.p4"
    bad.write_text("#include <v1model.p4>\nconst bit<8> x = 8w1 +;\n")
    assert fabemu(["p4c", str(bad), "-o", str(tmp_path / "b.json")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:23: error: syntax error" in err
    assert fabemu(["p4c", str(prog), "--p4runtime-files", "x.bin"]) == 2


def test_cli_defines_and_include_dirs(tmp_path: Path) -> None:
    corpus = Path(__file__).resolve().parents[2] / "p4" / "corpus"
    out = tmp_path / "pp.json"
    pp = tmp_path / "pp.p4"
    args = ["p4c", str(corpus / "preprocessor.p4"), "-o", str(out), "-I", str(corpus / "include")]
    assert fabemu([*args, "-D", "OUT_PORT=5", "--pp", str(pp)]) == 0
    assigns = [
        p["parameters"] for a in json.loads(out.read_text())["actions"] for p in a["primitives"]
    ]
    assert [
        {"type": "field", "value": ["standard_metadata", "egress_spec"]},
        {"type": "hexstr", "value": "0x0005"},
    ] in assigns
    assert "OUT_PORT" not in pp.read_text()
    assert fabemu(args) == 0
    assigns = [
        p["parameters"] for a in json.loads(out.read_text())["actions"] for p in a["primitives"]
    ]
    assert [
        {"type": "field", "value": ["standard_metadata", "egress_spec"]},
        {"type": "hexstr", "value": "0x0002"},
    ] in assigns
