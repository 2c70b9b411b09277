"""fabemu's core.p4 and v1model.p4 declare exactly what p4c's do (bmv2 marker: needs p4c's
p4include next to p4c-bm2-ss), so a program written here compiles there and back.

Compared after preprocessing (for both V1MODEL_VERSION branches), token by token, without
comments and annotations.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from emulator.p4c.frontend.lexer import tokenize
from emulator.p4c.frontend.preprocess import INCLUDE_DIR, preprocess


def _p4c_include() -> Path:
    exe = shutil.which("p4c-bm2-ss")
    if exe is None:
        pytest.skip("p4c-bm2-ss not on PATH")
    inc = Path(exe).resolve().parent.parent / "share" / "p4c" / "p4include"
    if not (inc / "v1model.p4").exists():
        pytest.skip(f"p4c's p4include not found at {inc}")
    return inc


def _declarations(include_dir: Path, name: str, version: str | None) -> list[str]:
    """Tokens of ``#include <name>`` from ``include_dir``, annotations left out."""
    defines = {"V1MODEL_VERSION": version} if version else None
    pre = preprocess(f"#include <{name}>\n", str(include_dir / "x.p4"), [include_dir], defines)
    toks = [t.text for t in tokenize(pre) if t.kind != "eof"]
    out, i = [], 0
    while i < len(toks):
        if toks[i] != "@":
            out.append(toks[i])
            i += 1
            continue
        i += 2  # '@' and the annotation's name, then its parenthesised body if any
        depth = 0
        while i < len(toks) and (depth or toks[i] == "("):
            depth += {"(": 1, ")": -1}.get(toks[i], 0)
            i += 1
    return out


@pytest.mark.bmv2
@pytest.mark.parametrize("version", [None, "20200408"])
@pytest.mark.parametrize("name", ["core.p4", "v1model.p4"])
def test_same_declarations_as_p4c(name: str, version: str | None) -> None:
    theirs = _declarations(_p4c_include(), name, version)
    ours = _declarations(INCLUDE_DIR, name, version)
    assert len(theirs) > 50
    assert ours == theirs


def test_annotation_bodies_are_skipped() -> None:
    """The comparison itself: an annotation with arguments leaves no tokens behind."""
    toks = _declarations(INCLUDE_DIR, "core.p4", None)
    assert "noWarn" not in toks and '"unused"' not in toks
    assert toks[toks.index("NoAction") - 1] == "action"
