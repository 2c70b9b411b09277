"""Compile every p4/corpus program with fabemu's front end and run its STF on the target."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.target.stf import run_stf, stf_to_cli
from emulator.target.switch import Switch

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
PROGRAMS = sorted(CORPUS.glob("*.p4")) if CORPUS.is_dir() else []

#: programs the target cannot run yet, with the reason (reported as skips, not hidden)
UNSUPPORTED: dict[str, str] = {}
#: simple_switch --priority-queues a program's STF needs (default 1, as bmv2stf runs it)
QUEUES = {"priority_queues": 8}


@pytest.mark.parametrize("p4", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_corpus_program_passes_its_stf(p4: Path) -> None:
    p4c = pytest.importorskip("emulator.p4c", reason="fabemu's P4 front end is not available")
    if not hasattr(p4c, "compile_file"):
        pytest.skip("emulator.p4c.compile_file is not available yet")
    if p4.stem in UNSUPPORTED:
        pytest.skip(UNSUPPORTED[p4.stem])
    stf = p4.with_suffix(".stf")
    if not stf.exists():
        pytest.skip(f"{p4.name} has no STF file")
    result = run_stf(p4c.compile_file(str(p4)), stf, priority_queues=QUEUES.get(p4.stem, 1))
    assert result.passed, result.message


@pytest.mark.parametrize("p4", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_stf_replayed_as_cli_commands_gives_the_same_packets(p4: Path) -> None:
    """The STF -> simple_switch_CLI translation used against real BMv2 loses nothing."""
    p4c = pytest.importorskip("emulator.p4c", reason="fabemu's P4 front end is not available")
    if not hasattr(p4c, "compile_file"):
        pytest.skip("emulator.p4c.compile_file is not available yet")
    stf = p4.with_suffix(".stf")
    if p4.stem in UNSUPPORTED or not stf.exists():
        pytest.skip("not runnable here")
    doc = p4c.compile_file(str(p4))
    queues = QUEUES.get(p4.stem, 1)
    reference = run_stf(doc, stf, priority_queues=queues).outputs
    sw = Switch(doc, priority_queues=queues)
    replayed: dict[int, list[bytes]] = {}
    for kind, what in stf_to_cli(doc, stf):
        if kind == "cli":
            sw.cli(what)
            continue
        for eport, data in sw.process(*what):
            replayed.setdefault(eport, []).append(data)
    assert replayed == reference


def test_priorities_without_queues_are_dropped_like_simple_switch() -> None:
    """With one queue (simple_switch's default) only priority-0 packets leave."""
    p4c = pytest.importorskip("emulator.p4c", reason="fabemu's P4 front end is not available")
    p4 = CORPUS / "priority_queues.p4"
    if not hasattr(p4c, "compile_file") or not p4.exists():
        pytest.skip("needs emulator.p4c and p4/corpus/priority_queues.p4")
    result = run_stf(p4c.compile_file(str(p4)), p4.with_suffix(".stf"), priority_queues=1)
    assert not result.passed
    assert [out[-1] for out in result.outputs[1]] == [0]
