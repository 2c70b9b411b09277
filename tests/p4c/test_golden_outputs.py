"""Every shipped P4 program compiles to the same BMv2 JSON and P4Info bytes as recorded.

The manifest (``golden/outputs.json``: program -> sha256 of ``fabemu p4c -o X.json
--p4runtime-files X.txt`` output, with the checkout's own path replaced by ``<root>`` because
the JSON names built-in includes by absolute path) guards refactors of the compiler: a change
of output must be intended. Regenerate after an intended change with ``pytest --update-golden``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from emulator.p4c.compiler import compile_with_p4info

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = Path(__file__).resolve().parent / "golden" / "outputs.json"
NOT_PROGRAMS = {"tests/p4c/programs/common.p4"}  # an include, no main


def programs() -> list[str]:
    """Repository-relative paths of every P4 program shipped or used by the tests."""
    found = [
        *ROOT.glob("p4/*.p4"),
        *ROOT.glob("p4/corpus/*.p4"),
        *ROOT.glob("tests/p4c/programs/*.p4"),
        *ROOT.glob("benchmarks/*.p4"),
    ]
    rel = sorted(str(p.relative_to(ROOT)) for p in found)
    return [r for r in rel if r not in NOT_PROGRAMS]


def digests(rel: str) -> dict[str, str]:
    """sha256 of the JSON file and the P4Info file ``fabemu p4c`` writes for ``rel``."""
    inc = ROOT / rel
    include = [str(Path(rel).parent / "include")] if (inc.parent / "include").is_dir() else []
    doc, p4info = compile_with_p4info(rel, include_dirs=include)
    text = json.dumps(doc, indent=2) + "\n"
    return {
        "json": hashlib.sha256(text.replace(str(ROOT), "<root>").encode()).hexdigest(),
        "p4info": hashlib.sha256(p4info.replace(str(ROOT), "<root>").encode()).hexdigest(),
    }


def _manifest() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(MANIFEST.read_text())
    return data


def test_manifest_lists_every_program() -> None:
    assert sorted(_manifest()) == programs()


@pytest.mark.parametrize("rel", programs())
def test_output_bytes_unchanged(
    rel: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.chdir(ROOT)  # the JSON names the program by the path it was given
    if request.config.getoption("--update-golden"):
        data = _manifest() if MANIFEST.exists() else {}
        data = {k: v for k, v in data.items() if k in programs()}
        data[rel] = digests(rel)
        MANIFEST.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return
    want = _manifest().get(rel)
    assert want is not None, f"{rel} not in {MANIFEST.name}: regenerate it"
    assert digests(rel) == want, f"{rel}: compiler output changed (intended? regenerate)"
