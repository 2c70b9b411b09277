"""Dead stores in parser states, dropped as p4c drops them.

p4c-bm2-ss's optimiser removes an assignment that a later assignment in the same parser
state overwrites with nothing reading the storage in between. Normally unseen, it shows
when the state stops between the two: an ``extract`` or ``lookahead`` past the end of the
packet (PacketTooShort) leaves the storage as it was before the state, not with the first
value::

    state s { meta.st = 3; pkt.extract(hdr.h); meta.st = 4; transition accept; }
    # packet too short: meta.st keeps its old value on simple_switch, not 3

Updates of the storage from itself in between (``meta.c = meta.c + 1``) go with it (p4c
folds them into one value); any other read keeps the store. Kept: a store whose value has
a call (its side effects), one into a slice or an indexed element, and anything across a
nested block, ``if`` or ``switch``.
"""

from __future__ import annotations

from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.writes import Path, overlap, path_of, read_paths


def without_dead_stores(stmts: list[A.Stmt]) -> list[A.Stmt]:
    """``stmts`` less the assignments a later one overwrites before anything reads them."""
    dead = {i for i, s in enumerate(stmts) if _overwritten(s, stmts[i + 1 :])}
    return [s for i, s in enumerate(stmts) if i not in dead]


def _target(s: A.Stmt) -> Path | None:
    """The path a plain store writes (no slice, no index, no call in its value)."""
    if not isinstance(s, A.Assign) or isinstance(s.lhs, A.Slice):
        return None
    p = path_of(s.lhs)
    if p is None or "[]" in p or any(isinstance(n, A.Call) for n in A.nodes(s.rhs)):
        return None
    return p


def _reads(x: object, p: Path) -> bool:
    return any(overlap(q, p) for q in read_paths(x))


def _overwritten(s: A.Stmt, later: list[A.Stmt]) -> bool:
    p = _target(s)
    if p is None:
        return False
    for t in later:
        if isinstance(t, A.Block | A.If | A.Switch):
            return False
        if isinstance(t, A.Assign) and path_of(t.lhs) == p and not isinstance(t.lhs, A.Slice):
            if not _reads(t.rhs, p):
                return True  # overwritten
            continue  # an update of p from p (p = p + 1): dead with it, as p4c folds them
        if _reads(t, p):
            return False
    return False
