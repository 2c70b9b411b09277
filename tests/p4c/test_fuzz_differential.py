"""``benchmarks/fuzz_differential.py``: seeded programs are reproducible and well typed,
and a short run on the real p4c-bm2-ss + simple_switch finds no difference (bmv2 marker)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.benchmark_scripts import load


def test_programs_are_reproducible_and_compile() -> None:
    """The same seed gives the same program; fabemu's front end accepts what it makes
    (p4c accepts these too: the bmv2 run below compiles both ways)."""
    from emulator.p4c import compile_source

    load("fuzz_differential")  # puts benchmarks/ on the path for fuzz_programs
    progs = load("fuzz_programs")
    texts = []
    for _ in range(2):
        rng = random.Random("7:0")
        gen = progs.Gen(rng, 0.0)
        layout = [(f"f{i}", gen.ty()) for i in range(6)]
        exprs = {name: gen.num(t, 3) for name, t in layout}
        texts.append(progs.render(layout, exprs))
    assert texts[0] == texts[1]
    assert compile_source(texts[0], "fuzz.p4")["actions"]


@pytest.mark.bmv2
def test_a_short_run_finds_no_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "1", "--programs", "4", "--fields", "6", "--keep", str(tmp_path)]
    assert load("fuzz_differential").main(args) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "compiled by both: 4" in out and "packets compared: 16" in out
