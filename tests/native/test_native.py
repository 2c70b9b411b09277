"""The compiled data path (emulator/native): loaded only when fresh, and changing nothing.

Unit tests build fake builds (a manifest and empty files) in tmp_path; the tests of the
real build need the one ``scripts/setup.sh`` made, and fail (not skip) when this machine
could have built it and did not.
"""

from __future__ import annotations

import importlib.machinery
import json
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from emulator import native

ROOT = Path(__file__).resolve().parents[2]


def _fake_build(tmp_path: Path, **changes: object) -> Path:
    """A build dir whose manifest matches the sources as they are (then ``changes``)."""
    build = tmp_path / "build"
    files = {}
    for module in native.MODULES:
        rel = f"{module.replace('.', '/')}.so"
        (build / rel).parent.mkdir(parents=True, exist_ok=True)
        (build / rel).write_bytes(b"")
        files[module] = rel
    manifest = {
        "abi": native.abi_tag(),
        "sources": {m: native.digest(native.source_path(m)) for m in native.MODULES},
        "files": files,
        **changes,
    }
    (build / native.MANIFEST).write_text(json.dumps(manifest))
    return build


def test_a_build_matching_the_sources_is_used(tmp_path: Path) -> None:
    st = native.check(_fake_build(tmp_path), native.MODULES)
    assert st.active, st
    assert set(st.files) == set(native.MODULES)


def test_an_edited_source_makes_the_whole_build_stale(tmp_path: Path) -> None:
    """One changed source disables every compiled module: they were built as one group."""
    sources = {m: native.digest(native.source_path(m)) for m in native.MODULES}
    edited = native.MODULES[-1]
    sources[edited] = "0" * 64
    st = native.check(_fake_build(tmp_path, sources=sources), native.MODULES)
    assert st.state == "stale" and not st.active
    assert native.source_path(edited).name in st.detail
    assert st.files == {}


@pytest.mark.parametrize(
    ("changes", "state"),
    [
        ({"abi": ".cpython-399-x86_64-linux-gnu.so"}, "other python"),
        ({"sources": {"emulator.runtime.virtual.engine": "x"}}, "stale"),  # other module set
    ],
)
def test_a_build_for_something_else_is_not_used(
    tmp_path: Path, changes: dict[str, object], state: str
) -> None:
    assert native.check(_fake_build(tmp_path, **changes), native.MODULES).state == state


def test_a_missing_or_broken_build_is_not_used(tmp_path: Path) -> None:
    assert native.check(tmp_path / "none", native.MODULES).state == "not built"
    build = _fake_build(tmp_path)
    (build / native.MODULES[0].replace(".", "/")).with_suffix(".so").unlink()
    assert native.check(build, native.MODULES).state == "stale"
    (build / native.MANIFEST).write_text("{not json")
    assert native.check(build, native.MODULES).state == "not built"


def test_the_environment_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.ENV, "0")
    assert native.check(_fake_build(tmp_path), native.MODULES).state == "off"


def test_the_finder_serves_only_the_builds_modules(tmp_path: Path) -> None:
    so = tmp_path / "engine.so"
    finder = native._Finder({"emulator.runtime.virtual.engine": so})
    assert finder.find_spec("emulator.runtime.virtual.links") is None
    assert finder.find_spec("emulator") is None
    spec = finder.find_spec("emulator.runtime.virtual.engine")
    assert spec is not None and spec.origin == str(so)
    assert isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)


def test_a_stale_build_warns_and_adds_no_finder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    sources = dict.fromkeys(native.MODULES, "0" * 64)
    monkeypatch.setattr(native, "BUILD_DIR", _fake_build(tmp_path, sources=sources))
    monkeypatch.setattr(native, "_status", None)
    before = list(sys.meta_path)
    with caplog.at_level(logging.WARNING, logger="emulator.native"):
        st = native.install()
    assert st.state == "stale"
    assert sys.meta_path == before
    assert "running interpreted" in caplog.text and "python -m emulator.native build" in caplog.text


# -- the real build ---------------------------------------------------------------------------


def _can_build() -> str | None:
    """Why this machine cannot build the compiled modules (None: it can)."""
    if shutil.which(sysconfig.get_config_var("CC").split()[0] or "cc") is None:
        return "no C compiler"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "no Python headers (python3-dev)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (the dev extra)"
    if native.check(native.BUILD_DIR, native.MODULES).state == "off":
        return f"{native.ENV}=0"
    return None


@pytest.fixture(scope="module")
def built() -> native.Status:
    """The real build's status; fails where it could have been built and was not."""
    reason = _can_build()
    if reason is not None:
        pytest.skip(f"compiled modules cannot be built here: {reason}")
    st = native.check(native.BUILD_DIR, native.MODULES)
    assert st.active, (
        f"compiled modules not in use ({st.state}: {st.detail}): build them with "
        "`python -m emulator.native build` (scripts/setup.sh does)"
    )
    return st


def _child(code: str, **env: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.strip()


def test_the_compiled_modules_are_what_emulator_imports(built: native.Status) -> None:
    code = "import importlib, sys; print(importlib.import_module(sys.argv[1]).__file__)"
    for module in native.MODULES:
        path = _child(code.replace("sys.argv[1]", repr(module)))
        assert path == str(built.files[module]), module
        assert _child(code.replace("sys.argv[1]", repr(module)), FABEMU_NATIVE="0").endswith(
            module.replace(".", "/") + ".py"
        )


def test_compiled_and_interpreted_runs_give_the_same_results(
    built: native.Status, tmp_path: Path
) -> None:
    """Every golden case (every shipped scenario), each way in its own process."""
    runs = {}
    for label, env in (("compiled", {}), ("interpreted", {native.ENV: "0"})):
        out = tmp_path / label
        report = json.loads(_child_script(out, env))
        assert report["state"] == ("compiled" if label == "compiled" else "off")
        runs[label] = {p.name: p.read_text() for p in sorted(out.glob("*.json"))}
    assert len(runs["compiled"]) == report["cases"] > 0
    for name, text in runs["interpreted"].items():
        assert runs["compiled"][name] == text, name
        assert '"totals"' in text


def _child_script(out: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("run_cases.py")), str(out)],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]
