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

The analysis goes on across transitions, as p4c's def-use analysis does: a store that is
the state's last access to its storage is dropped when every state the transition may go
to overwrites the storage before reading it (or passes it on, unread, to states that do).
``accept``, ``reject`` and a ``select`` without a ``default`` (or ``_``) case count as
reads: p4c gives such a select a case going to a state that rejects, even when a tuple of
``_`` matches everything. So does what cannot be followed (a block, ``if`` or ``switch``, a
local of that name). A failing ``verify`` or a too-short extract is not followed::

    state d1 { meta.y = 3; transition d3; }
    state d3 { pkt.extract(hdr.b); meta.y = 4; transition accept; }
    # packet too short for hdr.b: meta.y is as before the parser on simple_switch, not 3
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.writes import Path, overlap, path_of, read_paths


def without_dead_stores(
    stmts: list[A.Stmt], state: A.StateDecl | None = None, graph: Graph | None = None
) -> list[A.Stmt]:
    """``stmts`` less the assignments a later one overwrites before anything reads them,
    in the state or (given the ``state`` and its parser's ``graph``) after its transition."""
    dead = {i for i, s in enumerate(stmts) if _overwritten(s, stmts[i + 1 :])}
    if state is not None and graph is not None:
        for i, s in enumerate(stmts):
            p = _target(s)
            if p is not None and _passes(stmts[i + 1 :], p) and _dead_after(state, p, graph, set()):
                dead.add(i)
    return [s for i, s in enumerate(stmts) if i not in dead]


Graph = dict[str, A.StateDecl]


def _passes(stmts: Sequence[A.Stmt], p: Path) -> bool:
    """Whether ``stmts`` neither read nor write ``p`` (and hold nothing not followed)."""
    for t in stmts:
        if isinstance(t, A.Block | A.If | A.Switch | A.VarDecl | A.ConstDecl) or _reads(t, p):
            return False
        if isinstance(t, A.Assign) and (q := path_of(t.lhs)) is not None and overlap(q, p):
            return False
    return True


def _dead_after(s: A.StateDecl, p: Path, graph: Graph, seen: set[str]) -> bool:
    """Whether ``p``, unread so far in ``s``, is overwritten before any read on every path
    out of ``s``'s transition."""
    t = s.transition
    if t is None:
        return False  # an implicit reject
    if t.select is None:
        return _dead_at(t.state, p, graph, seen)
    if any(_reads(k, p) for k in t.select):
        return False
    if not any(isinstance(c.keyset, A.Default | A.DontCare) for c in t.cases):
        return False  # p4c's added no-match case: a reject
    return all(_dead_at(c.state, p, graph, seen) for c in t.cases)


def _dead_at(name: str, p: Path, graph: Graph, seen: set[str]) -> bool:
    """Whether state ``name`` overwrites ``p`` before reading it, or passes it on unread."""
    st = graph.get(name)
    if st is None or name in seen:
        return False  # accept, reject (the parser's caller reads), or a loop: kept
    seen = seen | {name}
    for i, t in enumerate(st.stmts):
        if _target(t) == p and not _reads(t.rhs, p):  # type: ignore[attr-defined]
            return _passes(st.stmts[:i], p)
    return _passes(st.stmts, p) and _dead_after(st, p, graph, seen)


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
