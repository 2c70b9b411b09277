"""The compile cache (emulator/p4c/cache.py): a hit is the compiler's output, never stale."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from emulator.p4c import cache, compile_file, compile_source

PROG = """
#include <core.p4>
#include <v1model.p4>
#include "consts.p4"
header h_t { bit<8> a; }
struct hs { h_t h; }
struct m { }
parser P(packet_in p, out hs h, inout m x, inout standard_metadata_t s) {
    state start { p.extract(h.h); transition accept; }
}
control V(inout hs h, inout m x) { apply { } }
control I(inout hs h, inout m x, inout standard_metadata_t s) {
    apply { s.egress_spec = PORT; }
}
control E(inout hs h, inout m x, inout standard_metadata_t s) { apply { } }
control C(inout hs h, inout m x) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


@pytest.fixture()
def prog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A program with a local include, and a private cache directory."""
    monkeypatch.setenv("FABEMU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FABEMU_COMPILECACHE", raising=False)
    monkeypatch.delenv("FABEMU_FAST", raising=False)
    (tmp_path / "consts.p4").write_text("#define PORT 3\n")
    p = tmp_path / "prog.p4"
    p.write_text(PROG)
    return p


def entries(tmp_path: Path) -> list[Path]:
    """The cache's entry files."""
    return sorted((tmp_path / "cache").glob("*.json"))


def test_hit_equals_compile(prog: Path, tmp_path: Path) -> None:
    first = compile_file(prog)
    assert first == compile_source(PROG, str(prog))
    assert len(entries(tmp_path)) == 1
    assert compile_file(prog) == first
    assert len(entries(tmp_path)) == 1  # a hit writes nothing new


def test_a_hit_skips_the_compiler(prog: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compile_file(prog)
    from emulator.p4c import compiler

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("compiled despite a cache entry")

    monkeypatch.setattr(compiler, "parse_program", boom)
    assert compile_file(prog)["pipelines"]
    monkeypatch.setenv("FABEMU_COMPILECACHE", "0")  # off: always compiles
    with pytest.raises(AssertionError, match="compiled despite"):
        compile_file(prog)


def test_changed_include_is_a_miss(prog: Path, tmp_path: Path) -> None:
    before = compile_file(prog)
    (tmp_path / "consts.p4").write_text("#define PORT 5\n")
    after = compile_file(prog)
    assert after != before
    assert after == compile_source(PROG, str(prog))


def test_changed_source_or_compiler_changes_the_key(prog: Path) -> None:
    k = cache.key(PROG, str(prog))
    assert cache.key(PROG + "\n", str(prog)) != k
    assert cache.key(PROG, str(prog), defines={"X": "1"}) != k
    cache.compiler_fingerprint.cache_clear()
    assert cache.key(PROG, str(prog)) == k  # same sources: same fingerprint


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_corrupt_entry_is_a_miss_and_rewritten(prog: Path, tmp_path: Path, damage: str) -> None:
    good = compile_file(prog)
    (entry,) = entries(tmp_path)
    raw = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(raw[: len(raw) // 2])
    elif damage == "flip":
        i = len(raw) - 10
        entry.write_bytes(raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1 :])
    else:
        entry.write_bytes(b"not a cache entry")
    assert cache.load(entry.stem) is None
    assert compile_file(prog) == good
    assert cache.load(entry.stem) == good


def test_unsafe_directory_is_not_used(prog: Path, tmp_path: Path) -> None:
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    os.chmod(d, 0o777)
    compile_file(prog)
    assert entries(tmp_path) == []


def test_unwritable_location_still_compiles(
    prog: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("FABEMU_CACHE_DIR", str(tmp_path / "file" / "cache"))
    assert compile_file(prog) == compile_source(PROG, str(prog))


def test_a_hit_never_imports_the_compiler(prog: Path, tmp_path: Path) -> None:
    """A fresh process (as ``fabemu run``) that hits the cache leaves the compiler unloaded."""
    import subprocess
    import sys

    compile_file(prog)
    probe = (
        "import sys\nfrom emulator.p4c import compile_file\n"
        f"assert compile_file({str(prog)!r})['pipelines']\n"
        "print('emulator.p4c.compiler' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False"]
    (entry,) = entries(tmp_path)
    entry.unlink()  # a miss: the compiler loads
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True"]
