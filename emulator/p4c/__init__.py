"""fabemu p4c: a pure-Python P4-16 (v1model) front end emitting BMv2 JSON.

Use :func:`compile_file` / :func:`compile_source`; errors are
:class:`emulator.p4c.diagnostics.CompileError` with ``file:line:col``. Importing the package
is light (:mod:`emulator.p4c.cached`): the compiler itself loads on a compile-cache miss.
"""

from __future__ import annotations

from emulator.p4c.cached import compile_file, compile_source
from emulator.p4c.diagnostics import CompileError

__all__ = ["CompileError", "compile_file", "compile_source"]
