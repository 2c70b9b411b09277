"""The fused parser (emulator/target/parsefuse.py): the same slots, payload and errors as
the state-by-state driver, for good, truncated and mangled frames; loops are left alone."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.p4c import compile_file
from emulator.target.packet import Pkt
from emulator.target.pipeline import CompiledProgram

from .fakes import ipv4_udp
from .test_packet_parser import parser_program

ROOT = Path(__file__).resolve().parents[2]
ROCE = compile_file(str(ROOT / "p4" / "roce_fabric.p4"))
BTH = bytes([4, 0, 0xFF, 0xFF, 0, 0, 0x12, 0x34, 0, 0, 0, 7])


def _loop_free() -> dict:
    """parser_program without its MPLS loop: parse_mpls goes on to IPv4 only."""
    doc = copy.deepcopy(parser_program())
    for s in doc["parsers"][0]["parse_states"]:
        if s["name"] == "parse_mpls":
            s["transition_key"], s["transitions"] = [], s["transitions"][1:]
    return doc


def _both(prog: CompiledProgram, frame: bytes) -> None:
    """Parse ``frame`` fused and through the driver (a ``path`` forces it): same result."""
    results = []
    for path in (None, []):
        f = prog.layout.template.copy()
        p = Pkt(frame, f)
        prog.parser.parse(f, p, path)
        results.append((f, p.off, p.payload))
    assert results[0] == results[1]


@pytest.fixture(scope="module", params=["roce", "loop_free"])
def fused(request: pytest.FixtureRequest) -> CompiledProgram:
    prog = CompiledProgram(ROCE if request.param == "roce" else _loop_free())
    assert prog.parser.fused is not None
    return prog


def _frames() -> st.SearchStrategy[bytes]:
    """RoCE-ish frames, then cut short and with bytes overwritten (etherType, protocol,
    ports, opcode: the transition keys)."""
    base = st.builds(
        lambda sport, tos, payload: ipv4_udp(sport=sport, tos=tos, payload=BTH + payload),
        st.integers(0, 65535),
        st.integers(0, 255),
        st.binary(max_size=40),
    )
    edits = st.lists(st.tuples(st.integers(0, 80), st.integers(0, 255)), max_size=6)
    return st.builds(
        lambda b, e, cut: _mangle(b, e)[: cut if cut is not None else None],
        base,
        edits,
        st.one_of(st.none(), st.integers(0, 90)),
    )


def _mangle(frame: bytes, edits: list[tuple[int, int]]) -> bytes:
    out = bytearray(frame)
    for pos, value in edits:
        if pos < len(out):
            out[pos] = value
    return bytes(out)


@settings(max_examples=300, deadline=None)
@given(frame=_frames())
def test_fused_parser_matches_the_driver(fused: CompiledProgram, frame: bytes) -> None:
    _both(fused, frame)


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        ipv4_udp()[:20],
        b"\0" * 12 + b"\x88\x47" + b"\0\0\x01\x40" + ipv4_udp()[14:],  # MPLS, then IPv4
        b"\0" * 12 + b"\x88\xb6" + b"\x45" + b"\0" * 40,  # lookahead
        b"\0" * 12 + b"\x12\x99" + ipv4_udp()[14:],  # masked value
        b"\0" * 12 + b"\x08\x00" + b"\x55" + ipv4_udp()[15:],  # verify fails: BadVersion
        b"\x01" + b"\0" * 11 + b"\x99\x99",  # nomatch: accept
    ],
)
def test_fused_parser_errors_and_corners(frame: bytes) -> None:
    prog = CompiledProgram(_loop_free())
    _both(prog, frame)


def test_loops_and_the_switch_keep_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A parser that loops (an MPLS stack) is not fused; FABEMU_FASTPARSE=0 fuses nothing."""
    assert CompiledProgram(parser_program()).parser.fused is None
    monkeypatch.setenv("FABEMU_FASTPARSE", "0")
    assert CompiledProgram(ROCE).parser.fused is None
