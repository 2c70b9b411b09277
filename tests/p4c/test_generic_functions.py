"""Generic functions (``T pick<T>(...)``): type arguments written or inferred, and the
mistakes p4c refuses too, reported at the call (checked against p4c-bm2-ss 1.2.4.8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.p4c import CompileError, compile_source

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus" / "generic_functions.p4"
CALL = "h.a.x = pick<bit<8>>(h.a.x > 5, h.a.x, 8w0xEE);"


def _with(call: str) -> str:
    src = CORPUS.read_text()
    assert CALL in src
    return src.replace(CALL, call)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("h.a.x = pick(h.a.x > 5, 1, 2);", "cannot infer type parameter T of function pick"),
        ("h.a.x = pick<bit<8>, bit<8>>(true, 1, 2);", "takes 1 type argument(s), not 2"),
        ("h.a.x = pick(h.a.x > 5, h.a.x, 16w1);", "bit<16> used where bit<8> is expected"),
    ],
)
def test_refused_at_the_call(call: str, message: str) -> None:
    with pytest.raises(CompileError) as err:
        compile_source(_with(call), "g.p4")
    text = str(err.value)
    assert message in text and text.startswith("g.p4:") and call.split("=")[1].strip() in text


def test_type_arguments_to_a_plain_function_are_refused() -> None:
    src = _with(CALL).replace(
        "T first<T>(in T a, in T b) {",
        "bit<8> plain(in bit<8> a) { return a; }\nT first<T>(in T a, in T b) {",
    )
    src = src.replace("h.q.v = first(h.r.v, h.q.v);", "h.q.v = plain<bit<8>>(h.r.v);")
    with pytest.raises(CompileError, match="function plain is not generic"):
        compile_source(src, "g.p4")


def test_the_type_parameter_hides_a_global_type_of_its_name_only_inside() -> None:
    doc = compile_source(CORPUS.read_text(), "g.p4")
    widths = {f[0]: f[1] for t in doc["header_types"] for f in t["fields"]}
    assert widths["I.copy"] == 16 and widths["I.low"] == 4, widths  # W: bit<16>, then bit<4>
