"""Action bodies as fastmatch inlines them into its fused nodes (speed-up ``FASTACTIONS``).

A straight-line action's body (the text :mod:`.primitives` generated) runs in place of its
call: ``exit``'s ``return True`` becomes ``return None`` (the node ends the pipeline, as the
call's True did). When no decision cache or replay records the program's runs (they watch
the externs while recording: :mod:`.flowwatch`) and no extern method is shadowed on its
instance, counter updates and register reads and writes are done in place too, on the arrays' own lists, as the methods do them: the
index (then the value) evaluated once, out-of-range indexes ignored (a read gives 0),
written values truncated to the cell width. The lists get names under fastmatch's prefix
(which the decision cache's namespace check leaves to fastmatch), derived from the arrays'
generated names, so the switches of a fabric share the fused code.
"""

from __future__ import annotations

from typing import Any

from emulator.target.codegen import CodeGen


def externs_plain(cg: CodeGen) -> bool:
    """True when no extern the actions call has a method shadowed on its instance."""
    return not any(method in vars(obj) for obj, method, _ in cg.externs.values())


def install(cg: CodeGen, prefix: str) -> None:
    """Name the arrays' lists in the generated code's namespace (``prefix`` + array name)."""
    for obj, method, (name, _, _) in cg.externs.values():
        if method == "count":
            cg.ns[f"{prefix}{name}_p"], cg.ns[f"{prefix}{name}_b"] = obj.packets, obj.bytes
        else:
            cg.ns[f"{prefix}{name}_v"] = obj.values


def _in_place(obj: Any, method: str, parts: tuple[str, str, str], prefix: str) -> list[str]:
    """The statement lines of a count or register write (``j``: not the ``i`` of in-place
    reads, which an index or value may contain)."""
    name, idx, value = parts
    if method == "count":
        cells = [f"    {prefix}{name}_p[j] += 1", f"    {prefix}{name}_b[j] += w"]
    else:
        cells = [f"    {prefix}{name}_v[j] = w & {obj.mask}"]
    return [f"j = {idx}", f"w = {value}", f"if 0 <= j < {obj.size}:", *cells]


def action_body(cg: CodeGen, fn: Any, plain: bool, prefix: str) -> list[str] | None:
    """Lines running action ``fn`` in place inside a node function, or None when it is
    not a straight-line action of this namespace; ``plain``: externs in place too."""
    body = cg.bodies.get(fn)
    if body is None or cg.ns.get(getattr(fn, "__name__", "")) is not fn:
        return None
    out: list[str] = []
    for line in body:
        indent, text = line[: len(line) - len(line.lstrip())], line.strip()
        ext = cg.externs.get(text) if plain else None
        if text == "return True":
            out.append(indent + "return None")
        elif ext is not None and ext[1] != "read":  # a count or a register write
            out += [indent + x for x in _in_place(*ext, prefix)]
        else:
            out.append(line)
    if plain:
        for call, (obj, method, (name, idx, old)) in cg.externs.items():
            if method == "read":
                cell = f"({prefix}{name}_v[i] if 0 <= (i := {idx}) < {obj.size} else {old})"
                out = [line.replace(call, cell) for line in out]
    return out or ["pass"]
