"""Straight-line code for whole-switch replay hits: one generated function per outcome.

A hit of :mod:`.framereplay` replays a recorded outcome (:class:`.flowcache.Outcome`):
lazy values recomputed from the packet's own inputs, constant and lazy slot writes,
counter and register updates, packet requests; after egress, the frame patched and its
checksums recomputed. Interpreting the recorded tuples costs a Python call per lazy value
and per effect; here each outcome gets a function doing the same in straight-line code
(register and counter cells indexed in place when the recorded index is in range, as the
extern's own method would). The source text names no value, only the outcome's structure:
values are the function's defaults, so the outcomes of one structure (the flows crossing
a switch) share one compiled code object. Nothing of the program's text reaches the source:
it is made of slot numbers, operators of :mod:`.flowlazy` and argument names.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable
from typing import Any

from emulator.target.externs import CounterArray, RegisterArray
from emulator.target.flowlazy import simplify
from emulator.target.hashes import csum16

#: operators of a lazy value (:data:`.flowlazy.OPS`) as expressions
_OPS = {
    "and": "({x} & {k})",
    "add": "({x} + {k})",
    "sub": "({x} - {k})",
    "rsub": "({k} - {x})",
    "shr": "({x} >> {k})",
    "shl": "({x} << {k})",
}
MAX_CODES = 4096  # compiled functions kept (by source); emptied past this
_CODES: dict[str, types.CodeType] = {}
_GLOBALS: dict[str, Any] = {"csum16": csum16, "__builtins__": builtins}


class _Source:
    """Lines of a function body and the values its ``c<N>`` names stand for."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.lines: list[str] = []

    def c(self, value: Any) -> str:
        """The argument name standing for ``value``."""
        self.values.append(value)
        return f"c{len(self.values) - 1}"

    def build(self, args: str) -> Callable[..., Any]:
        """The function (``args``) made from the lines, its code compiled once.

        The values are the function's defaults (``c0=...``): one tuple, where closure
        cells would be an object each for the garbage collector to count and visit."""
        names = "".join(f", c{i}=None" for i in range(len(self.values)))
        body = "".join(f"    {line}\n" for line in self.lines) or "    pass\n"
        src = f"def fn({args}{names}):\n{body}"
        code = _CODES.get(src)
        if code is None:
            if len(_CODES) >= MAX_CODES:
                _CODES.clear()
            ns: dict[str, Any] = {}
            exec(compile(src, "<framefast>", "exec"), ns)  # source made above, no program text
            code = _CODES[src] = ns["fn"].__code__
        return types.FunctionType(code, _GLOBALS, "fn", tuple(self.values))


def _cell_list(owner: Any, index: Any, method: Any, attr: str) -> list[int] | None:
    """``owner.<attr>`` if ``method`` is the extern's own (unwrapped) method and ``index``
    an in-range int: the list the method would index."""
    if getattr(method, "__func__", None) is None or type(index) is not int:
        return None
    cells = getattr(owner, attr, None)
    if type(cells) is not list or not 0 <= index < len(cells):
        return None
    return cells


def _value(src: _Source, spec: tuple[Any, Any]) -> str:
    """An expression computing a lazy value (:class:`.flowlazy.Sym` ``spec``) from ``f``."""
    probe, ops = spec
    if probe[0] == "slot":
        x = f"f[{src.c(probe[1])}]"
    else:
        read, index = probe[1], probe[2]
        reg = getattr(read, "__self__", None)
        own = isinstance(reg, RegisterArray) and read.__func__ is RegisterArray.read
        cells = _cell_list(reg, index, read, "values") if own else None
        if cells is not None:
            x = f"{src.c(cells)}[{src.c(index)}]"
        elif own and type(index) is int:
            x = "0"  # RegisterArray.read of an out-of-range cell
        else:
            x = f"{src.c(read)}({src.c(index)})"
    for code, k in simplify(ops):  # masks merged: same values
        x = _OPS[code].format(x=x, k=src.c(k))
    return x


def _effect(src: _Source, fn: Any, a: Any, ka: int, b: Any, kb: int) -> None:
    """Lines replaying one effect ``fn(a, b)`` (``ka``/``kb``: lazy value numbers or -1)."""
    bv = f"v{kb}" if kb >= 0 else src.c(b)
    owner = getattr(fn, "__self__", None)
    func = getattr(fn, "__func__", None)
    if ka < 0 and isinstance(owner, CounterArray) and func is CounterArray.count:
        packets = _cell_list(owner, a, fn, "packets")
        if packets is not None and len(owner.bytes) == len(packets):
            i = src.c(a)
            src.lines.append(f"{src.c(packets)}[{i}] += 1")
            src.lines.append(f"{src.c(owner.bytes)}[{i}] += {bv}")
            return
    if ka < 0 and isinstance(owner, RegisterArray) and func is RegisterArray.write:
        cells = _cell_list(owner, a, fn, "values")
        if cells is not None:
            src.lines.append(f"{src.c(cells)}[{src.c(a)}] = {bv} & {src.c(owner.mask)}")
            return
    av = f"v{ka}" if ka >= 0 else src.c(a)
    src.lines.append(f"{src.c(fn)}({av}, {bv})")


def replay_function(
    out: Any, filled: list[int] | None = None, keep: tuple[int, ...] = ()
) -> Callable[[list[int], Any], None]:
    """``out.replay`` (:class:`.flowcache.Outcome`) as straight-line code.

    With ``filled`` (the template with every constant write done), ``f`` is replaced by a
    copy of it but for the slots ``keep`` (per-frame inputs), instead of slot by slot."""
    src = _Source()
    for k, spec in enumerate(out.specs):  # before any write, as Outcome.replay
        src.lines.append(f"v{k} = {_value(src, spec)}")
    if filled is None:
        for s, v in out.writes:
            src.lines.append(f"f[{src.c(s)}] = {src.c(v)}")
    else:
        names = [(f"k{j}", src.c(s)) for j, s in enumerate(keep)]
        src.lines += [f"{k} = f[{s}]" for k, s in names]
        src.lines.append(f"f[:] = {src.c(filled)}")
        src.lines += [f"f[{s}] = {k}" for k, s in names]
    for s, k in out.sym_writes:
        src.lines.append(f"f[{src.c(s)}] = v{k}")
    for fn, a, ka, b, kb in out.effects_k:
        _effect(src, fn, a, ka, b, kb)
    for name, v in out.pwrites:
        src.lines.append(f"setattr(p, {src.c(name)}, {src.c(v)})")
    return src.build("f, p")


def _patch(src: _Source, place: tuple[int, int, int, int, int, bool], value: str) -> None:
    """Lines writing ``value`` into ``buf`` at a field's place (as ``write_field``)."""
    _, a, b, shift, mask, whole = place
    ca, cb, n = src.c(a), src.c(b), src.c(b - a)
    if whole:
        src.lines.append(f'buf[{ca}:{cb}] = {value}.to_bytes({n}, "big")')
        return
    m, sh, keep = src.c(mask), src.c(shift), src.c(~(mask << shift))
    src.lines.append(
        f'buf[{ca}:{cb}] = (int.from_bytes(buf[{ca}:{cb}], "big") & {keep}'
        f' | (({value} & {m}) << {sh})).to_bytes({n}, "big")'
    )


def deparse_function(eo: Any) -> Callable[[list[int], bytes], bytes] | None:
    """The byte patch of an egress outcome whose checksums are all computed on the
    patched bytes with no condition left (``FrameReplay._deparse``'s first case), or None."""
    if eo.csums is None or any(cond is not None for _, _, _, cond in eo.csums):
        return None
    src = _Source()
    src.lines += [f"f[{src.c(s)}] = 1" for s in eo.valid]
    src.lines.append("buf = bytearray(fr)")
    for place in eo.patch:
        _patch(src, place, f"f[{src.c(place[0])}]")
    for place, mask, ranges, _ in eo.csums:
        parts = ", ".join(f"buf[{src.c(a)}:{src.c(b)}]" for a, b in ranges)
        src.lines.append(f'v = csum16(b"".join(({parts},))) & {src.c(mask)}')
        src.lines.append(f"f[{src.c(place[0])}] = v")
        _patch(src, place, "v")
    src.lines.append("return bytes(buf)")
    return src.build("f, fr")
