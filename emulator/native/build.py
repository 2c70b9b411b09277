"""Compile ``emulator.native.MODULES`` with mypyc into ``_build/`` (with a manifest).

The build goes to a temporary directory first and replaces ``_build/`` only when it
succeeded, so a failed build leaves the previous state (or none) and fabemu runs
interpreted. Needs mypy (the ``dev`` extra), setuptools and a C compiler with Python's
headers (``python3-dev``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from emulator.native import BUILD_DIR, MANIFEST, MODULES, PACKAGE_ROOT, abi_tag, digest, source_path


class BuildError(Exception):
    """The compiled modules could not be built (the reason is the message)."""


def _extensions(modules: Sequence[str], temp: Path, opt_level: str) -> list:  # type: ignore[type-arg]
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        raise BuildError(f"mypyc is not installed ({exc}): pip install 'fabemu[dev]'") from exc
    paths = [str(source_path(m)) for m in modules]
    config = PACKAGE_ROOT / "pyproject.toml"
    args = ([f"--config-file={config}"] if config.is_file() else []) + paths
    try:  # in temp: mypycify writes its C files under the working directory
        with contextlib.chdir(temp):
            return mypycify(args, opt_level=opt_level, target_dir=str(temp / "c"))
    except SystemExit as exc:  # mypy reports type errors and exits
        raise BuildError(f"mypyc rejected the sources (exit {exc.code})") from exc


def build(modules: Sequence[str] = MODULES, out: Path = BUILD_DIR, opt_level: str = "3") -> Path:
    """Build ``modules`` into ``out``; returns the manifest's path."""
    try:
        from setuptools import Distribution
    except ImportError as exc:
        raise BuildError(f"setuptools is not installed ({exc})") from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=out.parent) as tmp:
        temp = Path(tmp)
        sources = {m: digest(source_path(m)) for m in modules}
        exts = _extensions(modules, temp, opt_level)
        lib = temp / "lib"
        dist = Distribution({"name": "fabemu-native", "ext_modules": exts})
        cmd = dist.get_command_obj("build_ext")
        cmd.build_lib = str(lib)  # type: ignore[attr-defined]
        cmd.build_temp = str(temp / "obj")  # type: ignore[attr-defined]
        cmd.parallel = os.cpu_count() or 1  # type: ignore[attr-defined]
        try:
            with contextlib.chdir(temp):
                dist.run_command("build_ext")
        except Exception as exc:  # distutils' CompileError, LinkError, ...
            raise BuildError(f"the C build failed: {exc}") from exc
        files = {}
        for so in sorted(lib.rglob("*.so")):
            rel = so.relative_to(lib)
            name = ".".join((*rel.parts[:-1], rel.name.split(".")[0]))
            files[name] = str(rel)
        missing = [m for m in modules if m not in files]
        if missing:
            raise BuildError(f"no extension module built for {', '.join(missing)}")
        manifest = {"abi": abi_tag(), "sources": sources, "files": files}
        (lib / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        # sources edited during the build: keep the build stale rather than wrong
        if any(digest(source_path(m)) != d for m, d in sources.items()):
            raise BuildError("a source changed while it was being compiled; build again")
        old = out.with_name(out.name + ".old")
        if out.exists():
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
        lib.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    return out / MANIFEST


def clean(out: Path = BUILD_DIR) -> bool:
    """Remove the compiled modules; whether there were any."""
    if not out.exists():
        return False
    shutil.rmtree(out)
    return True
