"""The compiler's entry points, light to import: a compile-cache hit never loads the compiler.

Importing :mod:`emulator.p4c.compiler` (front end, lowering, v1model tables) costs about
0.1 CPU s; ``fabemu run`` of a program compiled before only needs the cache, so the
compiler is imported here on a miss (or with the ``COMPILECACHE`` speed-up off) only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.p4c import cache
from emulator.p4c.diagnostics import read_source


def compile_source(
    text: str,
    filename: str = "<string>",
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """Compile P4-16 source text (v1model) to a BMv2 JSON document."""
    from emulator.p4c import compiler

    return compiler.compile_with_files(text, filename, include_dirs, defines)[0]


def compile_file(
    path: str | Path,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """Compile a P4-16 file (v1model) to a BMv2 JSON document.

    With the ``COMPILECACHE`` speed-up on, a program compiled before (same source, same
    included files, same compiler) comes from :mod:`emulator.p4c.cache` instead."""
    from emulator import speedups

    text = read_source(str(path))
    if not speedups.enabled("COMPILECACHE"):
        return compile_source(text, str(path), include_dirs, defines)
    key = cache.key(text, str(path), include_dirs, defines)
    doc = cache.load(key)
    if doc is None:
        from emulator.p4c import compiler

        doc, files = compiler.compile_with_files(text, str(path), include_dirs, defines)
        cache.store(key, doc, files)
    return doc
