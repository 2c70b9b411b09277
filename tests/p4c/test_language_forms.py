"""The P4-16 forms of ``language_forms.p4`` used wrongly: refused at the mistake, as p4c
1.2.4.8 refuses them (its messages in the comments)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.p4c import CompileError, compile_source

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus" / "language_forms.p4"


def _refused(old: str, new: str, message: str) -> None:
    src = CORPUS.read_text()
    assert old in src
    with pytest.raises(CompileError) as err:
        compile_source(src.replace(old, new), "f.p4")
    assert message in str(err.value) and str(err.value).startswith("f.p4:")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # p4c: static_assert: W is 8
        ("static_assert(W == 8, ", "static_assert(W == 9, ", "static assertion failed: W is 8"),
        (
            "        static_assert(W == 8);",
            "        static_assert(W != 8);",
            "static assertion failed",
        ),
        # p4c: Cannot cast implicitly type 'Unknown type' to type 'header a_t'
        ("h.a = (a_t){#};", "h.a = {#};", "{#} needs a cast to its header type"),
        ("h.a = (a_t){#};", "h.a = (pair_t){#};", "{#} is an invalid header, not a struct pair_t"),
        # p4c: a field without a value (no '...') and a name the struct lacks
        ("{ b = h.a.y, ... }", "{ b = h.a.y }", "no value for field 'a'"),
        ("{ b = h.a.y, ... }", "{ b = h.a.y, d = 1, ... }", "struct pair_t has no field 'd'"),
        ("{ b = h.a.y, ... }", "{ b = h.a.y, b = 1, ... }", "is given twice"),
        (
            "const pair_t P2 = { 7, 0x0102, 9 };",
            "const pair_t P2 = { 7, 0x0102 };",
            "has 3 fields, got 2 values",
        ),
        # p4c: a bit<8> does not convert to an enum without a cast
        ("h.a.x = Kind.HIGH;", "Kind k = h.a.x;", "used where enum Kind is expected"),
    ],
)
def test_refused_at_the_mistake(old: str, new: str, message: str) -> None:
    _refused(old, new, message)


def test_an_int_constant_is_shifted_before_the_cast() -> None:
    doc = compile_source(CORPUS.read_text(), "f.p4")
    text = str(doc["actions"])
    assert "0x1244" in text  # 0x1234 + (1 << 64 >> 60), folded at full precision
