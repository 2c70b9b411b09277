"""``benchmarks/fuzz_parsers.py``: seeded parser programs are reproducible and compile, the
packets walk the parser (keys set to take the chosen branch, some cut short), and a short
run on the real p4c-bm2-ss + simple_switch finds no difference (bmv2 marker)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.benchmark_scripts import load


def _gen(seed: str) -> Any:
    gen = load("fuzz_parsers").ParserGen(random.Random(seed))
    gen.graph()
    return gen


def test_programs_are_reproducible_and_compile() -> None:
    from emulator.p4c import compile_source

    assert _gen("parse:7:0").render() == _gen("parse:7:0").render()
    for n in range(8):
        compile_source(_gen(f"parse:7:{n}").render(), f"fuzz{n}.p4")


def test_the_generator_makes_every_parser_form() -> None:
    text = "\n".join(_gen(f"parse:3:{n}").render() for n in range(30))
    for form in ("lookahead<bit<", ".next);", ".last.more", "&&&", "advance(", "verify(",
                 "(bit<32>)(hdr.", "m.m0 = (bit<16>)", "m.m1 = ", ": reject;", "_, "):  # fmt: skip
        assert form in text, form


def test_a_walk_sets_the_keys_of_the_branch_it_takes() -> None:
    fp = load("fuzz_parsers")
    gen = fp.ParserGen(random.Random(1))
    h = fp.Hdr("h0", (("f0", 4), ("f1", 12)))
    gen.hdrs = [h]
    start = fp.State("start", None, keys=[("hdr.eth.type", 16, None, "type")])
    start.cases, start.default = [([(0x1234, 0xFFFF)], "s0")], "accept"
    s0 = fp.State("s0", h, keys=[("hdr.h0.f1", 12, h, "f1")])
    s0.cases, s0.default = [([(0x0A0, 0xFF0)], "accept")], "reject"
    gen.states = [start, s0]
    seen = set()
    for seq in range(40):
        frame = fp.Walk(gen).packet(seq)
        assert frame[11] == seq + 1 and len(frame) >= 14
        if frame[12:14] == b"\x12\x34" and len(frame) >= 16:
            seen.add((frame[14] & 0x0F, frame[15] >> 4))  # f1's top 8 bits: 0x0A or free
    assert (0x0, 0xA) in seen, seen  # the masked case taken: f1 & 0xFF0 == 0x0A0


@pytest.mark.bmv2
def test_a_short_run_finds_no_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "6", "--programs", "4", "--packets", "6", "--keep", str(tmp_path)]
    assert load("fuzz_parsers").main(args) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "compiled by both: 4" in out and "packets compared: 24" in out
