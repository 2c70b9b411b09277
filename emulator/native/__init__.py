"""Compiled (mypyc) builds of the virtual-time data path, loaded only while they are fresh.

The hot per-packet modules (event engine, links, hop plumbing, samplers, the switch's
traffic manager, the target's pipeline helpers and hashes, the RNICs and queue pairs;
``MODULES``) can be compiled to C extension modules with mypyc (``python -m
emulator.native build``, which ``scripts/setup.sh`` runs). The builds live in ``_build/``
beside this file, never beside the sources, so an extension module cannot shadow source
it was not built from:

    emulator/__init__.py --install()--> sys.meta_path[0] = _Finder
        import emulator.runtime.virtual.engine
          |-- FABEMU_NATIVE=0, no build, or build for another Python --> the .py source
          |-- any listed module's source differs from the build's   --> the .py source
          |                                                             (one warning)
          '-- else --> _build/emulator/runtime/virtual/engine.<abi>.so

Every source in ``MODULES`` is checked, not only the one imported: mypyc compiles them as
one group, each built against the others' classes. Compiled and interpreted runs give the
same result.json (tests/native/).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: the modules compiled, in the order mypyc is given them
MODULES: tuple[str, ...] = (
    "emulator.runtime.virtual.engine",
    "emulator.runtime.virtual.links",
    "emulator.runtime.virtual.lazysample",
    "emulator.runtime.virtual.nodes",
    "emulator.runtime.virtual.fasthop",
    "emulator.target.tm",
    "emulator.target.tm_fast",
    "emulator.target.hashes",
    "emulator.target.fastmatch",
    "emulator.target.codegen",
    "emulator.target.unpack",
    "emulator.target.inline",
    "emulator.target.pipeline",
    "emulator.target.primitives",
    "emulator.target.pfc_gen",
    "emulator.target.packet",
    "emulator.target.switch",
    "emulator.traffic.framing_fast",
    "emulator.runtime.virtual.measure",
    "emulator.traffic.qp",
    "emulator.traffic.qp_fast",
    "emulator.traffic.rnic",
    "emulator.traffic.rnic_fast",
)
ENV = "FABEMU_NATIVE"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the directory holding emulator/
BUILD_DIR = Path(__file__).resolve().parent / "_build"
MANIFEST = "manifest.json"
_OFF = ("0", "off", "false", "no")
_log = logging.getLogger(__name__)


def source_path(module: str) -> Path:
    """The .py file of ``module`` (a dotted name under emulator)."""
    return PACKAGE_ROOT.joinpath(*module.split(".")).with_suffix(".py")


def digest(path: Path) -> str:
    """sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def abi_tag() -> str:
    """What an extension module must have been built for to load in this interpreter."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


@dataclass(frozen=True)
class Status:
    """Whether the compiled modules are in use, and why (not)."""

    state: str  # "compiled", "off", "not built", "stale", "other python"
    detail: str
    files: dict[str, Path]  # module name (and the group's shared library) -> .so

    @property
    def active(self) -> bool:
        return self.state == "compiled"


def check(build_dir: Path = BUILD_DIR, modules: Sequence[str] | None = None) -> Status:
    """Compare the build's manifest with this interpreter and the sources as they are now."""
    if os.environ.get(ENV, "").strip().lower() in _OFF:
        return Status("off", f"{ENV}=0", {})
    try:
        manifest = json.loads((build_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        return Status("not built", "no compiled modules (python -m emulator.native build)", {})
    if manifest.get("abi") != abi_tag():
        return Status("other python", f"built for {manifest.get('abi')}, not {abi_tag()}", {})
    sources: dict[str, str] = manifest.get("sources", {})
    if modules is not None and sorted(sources) != sorted(modules):
        return Status("stale", "the build compiled other modules than emulator.native.MODULES", {})
    for module, want in sources.items():
        path = source_path(module)
        if not path.is_file() or digest(path) != want:
            return Status("stale", f"{path.name} changed since the build", {})
    files = {name: build_dir / rel for name, rel in manifest.get("files", {}).items()}
    if not all(p.is_file() for p in files.values()):
        return Status("stale", "a compiled file is missing", {})
    return Status("compiled", f"{len(sources)} modules compiled by mypyc", files)


class _Finder:
    """Meta-path finder serving the fresh build's extension modules (and nothing else)."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        so = self.files.get(fullname)
        if so is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(so))
        return importlib.machinery.ModuleSpec(fullname, loader, origin=str(so))


_status: Status | None = None


def install() -> Status:
    """Put the finder first on sys.meta_path if the build is fresh (once per process)."""
    global _status
    if _status is not None:
        return _status
    _status = check(BUILD_DIR, MODULES)
    if _status.active:
        sys.meta_path.insert(0, _Finder(_status.files))
    elif _status.state in ("stale", "other python"):
        _log.warning(
            "fabemu: compiled modules not used (%s); running interpreted. "
            "Rebuild: python -m emulator.native build",
            _status.detail,
        )
    return _status


def status() -> Status:
    """This process's status (what :func:`install` found when emulator was imported)."""
    return install()
