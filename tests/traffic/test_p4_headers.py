"""The P4 program's RoCE header declarations agree with the scapy layers (names, widths)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from emulator.traffic.headers import AETH, BTH, RETH, scapy_layer_fields

P4_FILE = Path(__file__).resolve().parents[2] / "p4" / "roce_fabric.p4"
_HEADER = re.compile(r"header\s+(\w+)\s*\{([^}]*)\}", re.S)
_FIELD = re.compile(r"bit\s*<\s*(\d+)\s*>\s+(\w+)\s*;")
_INCLUDE = re.compile(r'#\s*include\s+"([^"]+)"')
#: scapy.contrib.roce's BTH names -> the IBTA abbreviations the P4 program uses
SCAPY_TO_P4 = {"solicited": "se", "padcount": "padcnt", "version": "tver"}


def read_with_includes(path: Path, depth: int = 0) -> str:
    """``path``'s text followed by its quoted #include files (recursively, bounded)."""
    text = path.read_text()
    if depth < 8:
        for inc in _INCLUDE.findall(text):
            sub = path.parent / inc
            if sub.exists():
                text += "\n" + read_with_includes(sub, depth + 1)
    return text


def p4_headers(text: str) -> dict[str, list[tuple[str, int]]]:
    """{header type: [(field, width)]} of every ``header X { bit<W> f; ... }``."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    return {
        name: [(f, int(w)) for w, f in _FIELD.findall(body)] for name, body in _HEADER.findall(text)
    }


def test_regex_reads_header_declarations() -> None:
    src = "header foo_t { bit<8> a; // c\n bit<24> b; }\nstruct x { bit<1> z; }"
    assert p4_headers(src) == {"foo_t": [("a", 8), ("b", 24)]}


@pytest.mark.parametrize(("p4_name", "layer"), [("bth_t", BTH), ("reth_t", RETH), ("aeth_t", AETH)])
def test_p4_header_matches_scapy_layer(p4_name: str, layer: type) -> None:
    if not P4_FILE.exists():
        pytest.skip(f"{P4_FILE} not written yet")
    headers = p4_headers(read_with_includes(P4_FILE))
    if p4_name not in headers:
        pytest.skip(f"{P4_FILE.name} declares no {p4_name}")
    expected = [(SCAPY_TO_P4.get(n, n), w) for n, w in scapy_layer_fields(layer)]
    assert headers[p4_name] == expected
    assert sum(w for _, w in headers[p4_name]) % 8 == 0
