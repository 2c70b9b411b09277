"""A content-addressed cache of compiled programs, so repeated runs skip the compiler.

    key   = sha256(compiler fingerprint, file name, source text, include dirs, defines)
    entry = <cache dir>/<key>.json:  "<sha256 of body>\\n" + body
    body  = {"format", "key", "deps": [[path, sha256 of its bytes], ...], "doc": BMv2 JSON}

The compiler fingerprint hashes the compiler's own sources (``emulator/p4c/**/*.py``), so
an edited compiler never reuses old output. ``deps`` are the files the preprocessor opened
for ``#include`` (the v1model header too): a hit needs every one unchanged (ccache's
"direct mode"). Entries are written to a temporary file and renamed into place, and carry a
digest of their body: a torn, corrupt or foreign entry is a miss (and is rewritten).

The directory is ``$FABEMU_CACHE_DIR``, else ``$XDG_CACHE_HOME/fabemu/p4c``, else
``~/.cache/fabemu/p4c``; created mode 0700, and not used (every compile a miss) when it is
not a directory owned by this user and closed to group and others, or cannot be written.
Limitation: a *new* file shadowing an include in an earlier include directory is not seen.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.runtime.statedir import why_unsafe

FORMAT = 1
_P4C_DIR = Path(__file__).resolve().parent


def cache_dir() -> Path:
    """Where compiled programs are kept."""
    own = os.environ.get("FABEMU_CACHE_DIR")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "fabemu" / "p4c"


@functools.lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """sha256 over the compiler's Python sources (paths and bytes), once per process."""
    h = hashlib.sha256()
    for f in sorted(_P4C_DIR.rglob("*.py")):
        h.update(str(f.relative_to(_P4C_DIR)).encode() + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def key(
    text: str,
    filename: str,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> str:
    """The cache key of one compilation's inputs."""
    parts = {
        "compiler": compiler_fingerprint(),
        "file": filename,
        "source": text,
        "include_dirs": [str(d) for d in include_dirs],
        "defines": sorted((defines or {}).items()),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _file_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _usable_dir(create: bool) -> Path | None:
    """The cache directory if it is safe to use (created when ``create``), else None."""
    d = cache_dir()
    try:
        if create:
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return None
    return None if why_unsafe(st, want_dir=True) else d


def load(k: str) -> dict[str, Any] | None:
    """The cached BMv2 JSON for key ``k``, or None (missing, stale, corrupt, unsafe)."""
    d = _usable_dir(create=False)
    if d is None:
        return None
    try:
        raw = (d / f"{k}.json").read_bytes()
        digest, _, body = raw.partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return None
        entry = json.loads(body)
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != k:
        return None
    deps, doc = entry.get("deps"), entry.get("doc")
    if not isinstance(deps, list) or not isinstance(doc, dict):
        return None
    for dep in deps:
        if not (isinstance(dep, list) and len(dep) == 2) or _file_digest(dep[0]) != dep[1]:
            return None
    return doc


def store(k: str, doc: Mapping[str, Any], files: Sequence[str]) -> bool:
    """Keep ``doc`` under key ``k`` with the included ``files``; False if it could not be."""
    d = _usable_dir(create=True)
    if d is None:
        return False
    deps = []
    for f in dict.fromkeys(files):
        digest = _file_digest(f)
        if digest is None:
            return False
        deps.append([f, digest])
    body = json.dumps({"format": FORMAT, "key": k, "deps": deps, "doc": doc}).encode()
    if json.loads(body)["doc"] != doc:  # tuples, non-str keys: a hit would differ
        return False
    data = hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{k[:16]}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, d / f"{k}.json")
        tmp = None
    except OSError:
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return True
