"""``benchmarks/fuzz_statements.py``: seeded control-flow programs are reproducible and
compile, the reducer only shrinks, and a short run on the real p4c-bm2-ss + simple_switch
finds no difference (bmv2 marker)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.benchmark_scripts import load


def _program(seed: str) -> object:
    fs = load("fuzz_statements")
    progs = load("fuzz_programs")
    rng = random.Random(seed)
    return fs.StmtGen(rng, 0.0, progs.make_packets(rng, 4)).program(4)


def test_programs_are_reproducible_and_compile() -> None:
    from emulator.p4c import compile_source

    texts = [_program("stmt:7:0").render() for _ in range(2)]  # type: ignore[attr-defined]
    assert texts[0] == texts[1]
    for n in range(6):
        src = _program(f"stmt:7:{n}").render()  # type: ignore[attr-defined]
        assert "apply {" in src
        compile_source(src, f"fuzz{n}.p4")


def test_the_generator_makes_every_statement_form() -> None:
    text = "\n".join(_program(f"stmt:3:{n}").render() for n in range(12))  # type: ignore[attr-defined]
    for form in (".apply().action_run", ".apply().hit", "const entries", "} else {",
                 "&&&", " .. ", "exit;", "default_action"):  # fmt: skip
        assert form in text, form


def test_reductions_are_smaller_and_keep_the_rest() -> None:
    fs = load("fuzz_statements")
    leaf = fs.Node(("x = 1;",))
    branchy = fs.Node(("if (c) {", "} else {"), ((leaf, leaf), (leaf,)), "}")
    block = (leaf, branchy, leaf)
    assert fs.size(block) == 6
    variants = fs.reductions(block)
    assert all(fs.size(v) < fs.size(block) for v in variants)
    assert (leaf, leaf) in variants  # the if dropped
    assert (leaf, leaf, leaf, leaf) in variants  # the if replaced by its then block
    assert (leaf, fs.Node(branchy.heads, ((leaf,), (leaf,)), "}"), leaf) in variants
    prog = _program("stmt:7:1")
    assert all(v.size() < prog.size() for v in prog.variants())  # type: ignore[attr-defined]


@pytest.mark.bmv2
def test_a_short_run_finds_no_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "1", "--programs", "4", "--packets", "4", "--keep", str(tmp_path)]
    assert load("fuzz_statements").main(args) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "compiled by both: 4" in out and "packets compared: 16" in out
