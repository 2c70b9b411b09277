"""Property: a damaged BMv2 JSON either loads or raises ProgramError (a UserError), never a
Python exception, and a loaded one still processes packets without internal errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.errors import ProgramError
from emulator.target.switch import Switch

from .fakes import FifoTM, ipv4_udp

DOC = json.loads((Path(__file__).parent / "programs" / "l3_ecmp.json").read_text())
JUNK = [None, 0, -1, 7, "x", "0xzz", [], {}, [1, 2], {"type": "field"}, True]


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = [p for p in _paths(DOC) if p]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PATHS), st.sampled_from(JUNK), st.booleans()),
                min_size=1, max_size=3))  # fmt: skip
def test_damaged_programs_fail_cleanly(edits):
    doc = copy.deepcopy(DOC)
    for path, junk, delete in edits:
        node = doc
        try:
            for key in path[:-1]:
                node = node[key]
            if delete and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = junk
        except (KeyError, IndexError, TypeError):
            continue
    try:
        sw = Switch(doc, tm=FifoTM(lambda: 0))
    except ProgramError:
        return
    sw.process(1, ipv4_udp())
