"""A program without ``main`` gets a real location (its last line), not 0:0."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.p4c import compile_file
from emulator.p4c.diagnostics import CompileError

SOURCE = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
"""


def test_missing_main_points_at_end_of_file(tmp_path: Path) -> None:
    prog = tmp_path / "nomain.p4"
    prog.write_text(SOURCE)
    with pytest.raises(CompileError) as info:
        compile_file(prog)
    first = str(info.value).splitlines()[0]
    assert first == f"{prog}:3:25: error: no 'main' package instance (e.g. V1Switch(...) main;)"
