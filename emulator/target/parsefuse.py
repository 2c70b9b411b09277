"""The ``FASTPARSE`` speed-up: a program's whole parser as one generated function.

Each parse state compiles to a function returning the next state, which the parser's
driver loop calls in turn (:mod:`.packet_parser`). When the states reachable from the start
form no loop (no header stacks parsed in a loop, the usual case), the next states' code is
inlined in place of returning them instead: one call per packet, no driver loop. The
states' code is the same text, so what is extracted, checked and raised is the same;
without a loop a packet cannot reach ``MAX_PARSER_STEPS``, so no timeout is lost.
``FABEMU_FASTPARSE=0`` keeps the driver loop (tests/target/test_speedups_scenarios.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.target.codegen import CodeGen

MAX_LINES = 4000  # a fused parser longer than this (many shared tails) is not built
Cases = list[tuple[str | None, str]]  # (condition source, None: default; next state name)


class _GiveUp(Exception):
    """The parser loops, or inlining it would be too long."""


def case_lines(cases: Cases, target: Callable[[str], list[str]]) -> list[str]:
    """A state's transition lines: each case's ``target`` lines under its condition; a
    state without a default case accepts (``return None``)."""
    out: list[str] = []
    for cond, nxt in cases:
        if cond is None:
            return out + target(nxt)
        out += [f"if {cond}:", *["    " + line for line in target(nxt)]]
    return [*out, "return None"]


def fuse(
    cg: CodeGen, pieces: dict[str, tuple[list[str], Cases]], start: str, codes: tuple[int, int]
) -> Any:
    """One function running the parser from state ``start`` with every next state inlined,
    then leaving the rest of the packet as its payload (as ``Parser.parse``), or None when
    the states loop or the function would be longer than ``MAX_LINES``.

    ``pieces``: state function name -> (its op and key lines, its cases); ``codes``: the
    parser_error slot and the PacketTooShort code (a failed lookahead raises code -1)."""
    size = [0]

    def state(name: str, above: frozenset[str]) -> list[str]:
        if name == "None":
            return ["return None"]
        if name in above or name not in pieces:
            raise _GiveUp(name)
        lines, cases = pieces[name]
        out = [*lines, *case_lines(cases, lambda nxt: state(nxt, above | {name}))]
        size[0] += len(out)
        if size[0] > MAX_LINES:
            raise _GiveUp(name)
        return out

    try:
        body = ["d = ()", *state(start, frozenset())]
    except _GiveUp:
        return None
    slot, too_short = codes
    body = [
        "try:",
        *["    " + line for line in body],
        "except _PE as err:",
        f"    f[{slot}] = {too_short} if err.code == -1 else err.code",
        "finally:",
        "    p.payload = p.buf[p.off :]",
    ]
    return cg.function(cg.fresh("ps_"), "f, p", body)
