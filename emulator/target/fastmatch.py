"""Table nodes specialised to their installed entries: fewer steps per table per packet.

``Table.apply`` is general: it looks the key up by match kind, then checks counters,
meters, action profiles and empty groups, then picks the next node. roce_fabric.p4 applies
~15 tables per packet, most of them p4c's keyless ``tbl_act_N`` wrappers of inline code
that always run their default action. After each control-plane change (lazily, at the next
packet) every table without direct counters, meters or an action profile gets a generated
node function in the program's namespace, of one of three shapes:

* no entries (keyless tables, empty tables): run the default action, return its next node;
* exact match: one ``dict.get`` on the key giving ``(action, data, next node)``;
* LPM / ternary / range: ``Table.lookup``, then the same precomputed triple.

Control flow refers to nodes by their global name in the namespace, so the new functions
take the tables' places; the remaining (general) tables' next pointers are re-pointed, and
each pipeline starts with a trampoline that rebuilds first if a table changed. What runs is
the same actions in the same order with the same data: ``FABEMU_FASTMATCH=0`` keeps
``Table.apply`` everywhere (tests/target/test_speedups_scenarios.py compares results).
"""

from __future__ import annotations

import ast
import functools
import re
import types
from collections.abc import Callable
from typing import Any

from emulator.target import inline as inlining
from emulator.target.tables import ActionSpec, Entry, Group, Member, Table

PREFIX = "_fm_"  # names this module puts in the generated-code namespace
EXIT = "!exit"  # "next node" of an entry without an action: the pipeline ends
MAX_LINES = 160  # source lines of one generated function that runs nodes inline
MAX_SHAPES = 64  # fused code kept for this many (program, table shapes)
MAX_DISPATCH = 4  # a table's straight-line actions inlined after a lookup, at most
_USES_D = re.compile(r"\bd\[")  # an action body reading its action data
#: (program sources, table shapes) -> the fused node functions' code
_FUSED: dict[tuple[Any, ...], list[types.CodeType]] = {}
Result = tuple[Callable[..., Any], tuple[int, ...], Any]  # (action fn, data, next node)


def _original_nodes(ns: dict[str, Any]) -> dict[int, str]:
    """id(node object) -> its name, for every control-flow node in ``ns``."""
    return {id(obj): name for name, obj in ns.items() if name.startswith("nd_")}


def _table_of(obj: Any) -> Table | None:
    if isinstance(obj, types.MethodType) and isinstance(obj.__self__, Table):
        return obj.__self__
    return None


def specialisable(table: Table) -> bool:
    """True when the table's ``apply`` reduces to lookup (+ selector) + action + next node."""
    return not table.with_counters and table.meter_factory is None and table.meter_slot is None


def attach(program: Any, inline: bool = False) -> FastTables | None:
    """Specialised nodes for ``program``, or None when its control flow is not made of the
    generated nodes this module knows (it then runs as compiled); ``inline``: straight-line
    actions run inline in the fused nodes instead of being called (``FASTACTIONS``)."""
    try:
        return FastTables(program, inline)
    except KeyError:  # a node or key function missing from the namespace: leave it alone
        return None


class FastTables:
    """The specialised table nodes of one compiled program (see the module doc)."""

    def __init__(self, program: Any, inline: bool = False) -> None:
        self.program = program
        self.inline = inline
        self.plain = False
        #: a decision cache or replay records runs of this program: it watches the externs
        #: (only while it records), so inlined bodies must call them (set by the switch)
        self.watched = False
        self.ns: dict[str, Any] = program.cg.ns
        names = _original_nodes(self.ns)
        self.dirty = True
        self.rebuilds = 0
        #: node name -> table, every table node of the program
        self.tables: dict[str, Table] = {}
        #: node name -> (name of next_hit, of next_miss, {action id: name of next})
        self.links: dict[str, tuple[str | None, str | None, dict[int, str | None]]] = {}
        keyfns = {id(obj): name for name, obj in self.ns.items() if name.startswith("key_")}
        self.keyfn: dict[str, str] = {}

        def ref(node: Any) -> str | None:
            return None if node is None else names[id(node)]

        for name, obj in list(self.ns.items()):
            table = _table_of(obj) if name.startswith("nd_") else None
            if table is None:
                continue
            self.tables[name] = table
            self.keyfn[name] = keyfns[id(table.keyfn)]
            by_action = {aid: ref(nxt) for aid, nxt in table.next_by_action.items()}
            self.links[name] = (ref(table.next_hit), ref(table.next_miss), by_action)
        #: conditional node name -> (test source, true next, false next), for inlining
        self.conds = _conditionals(program.cg.sources)
        self.sources = tuple(program.cg.sources)  # identifies the program (for _FUSED)
        self._originals = {name: self.ns[name] for name in (*self.tables, *self.conds)}
        self.starts = [names[id(s)] for s in (program.ingress, program.egress) if s is not None]
        self.watch_changes()
        self.ns[PREFIX + "exit"] = _compile(self.ns, PREFIX + "exit", "f, p, d", ["return True"])
        self.ns[PREFIX + "go"] = _compile(self.ns, PREFIX + "go", "f, p, d", ["return False"])
        ingress = self._entries("ingress", names, program.ingress)
        egress = self._entries("egress", names, program.egress)
        #: "ingress"/"egress" -> a function running that pipeline (rebuilding first if
        #: needed) without a trampoline step: what the switch calls when nothing wraps it
        self.runners = {"ingress": ingress[1], "egress": egress[1]}
        program.ingress, program.egress = ingress[0], egress[0]

    def _chain(self, prev: Callable[[], None]) -> Callable[[], None]:
        def changed() -> None:
            prev()
            self.dirty = True

        return changed

    def watch_changes(self) -> None:
        """Hook ``changed`` of every table and action profile again (after another module
        replaced it)."""
        for owner in (*self.tables.values(), *self.program.profiles.values()):
            owner.changed = self._chain(owner.changed)

    def _entries(self, which: str, names: dict[int, str], start: Any) -> tuple[Any, Any]:
        """(a first node that rebuilds if needed, then returns the pipeline's real first
        node; ``run(that node, f, p)`` in one function), or (None, None) without that
        pipeline."""
        if start is None:
            return None, None
        first = names[id(start)]
        ns = self.ns

        def begin(_f: list[int], _p: Any) -> Any:
            if self.dirty:
                self.rebuild()
            return ns[first]

        def run_pipeline(f: list[int], p: Any) -> None:
            node = (begin(f, p) if self.dirty else ns[first])(f, p)
            while node is not None:
                node = node(f, p)

        begin.__name__, run_pipeline.__name__ = f"{which}_start", f"run_{which}"
        return begin, run_pipeline

    # -- building --------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Regenerate every specialised node from the tables' current entries."""
        self.dirty = False
        self.rebuilds += 1
        #: externs done in place in inlined bodies (no decision cache watches them)
        self.plain = self.inline and not self.watched and inlining.externs_plain(self.program.cg)
        if self.plain:
            inlining.install(self.program.cg, PREFIX)
        ns = self.ns
        fast = {n: t for n, t in self.tables.items() if specialisable(t) and not _empty_group(t)}
        nexts = {n: self._next_names(t, *self.links[n]) for n, t in fast.items()}
        ns.update(self._originals)  # functions first (results name them); unreached: as is
        self._fuse(fast, nexts)
        for name, table in self.tables.items():
            if name in fast:
                self._results(name, table)
            else:
                hit, miss, by_action = self.links[name]
                table.next_hit, table.next_miss = self._get(hit), self._get(miss)
                table.next_by_action = {a: self._get(n) for a, n in by_action.items()}

    def _get(self, name: str | None) -> Any:
        return None if name is None else self.ns[name]

    @staticmethod
    def _next_names(
        table: Table, hit: str | None, miss: str | None, by_action: dict[int, str | None]
    ) -> set[str | None]:
        """Names of the nodes that may follow ``table`` now (EXIT: an action-less entry)."""
        found: set[str | None] = set()
        if table.default is None:
            found.add(miss)  # __MISS__, or base_default_next
        for e, fixed in [(table.default, miss), *((e, hit) for e in table.entries.values())]:
            for action in _actions(e):
                if action is None:
                    found.add(EXIT)
                else:
                    found.add(fixed if table.hit_miss else by_action.get(action.id))
        return found

    def _fuse(self, fast: dict[str, Table], nexts: dict[str, set[str | None]]) -> None:
        """From each pipeline's first node, functions running as many nodes inline as fit
        (conditionals become ``if``s); the nodes where they stop (and those after general
        tables) get such functions too, so every node a packet reaches runs fused.

        The code depends only on the program and each table's shape, so the switches of a
        fabric share it (``_FUSED``)."""
        shape = tuple(
            (
                n,
                bool(t.entries),
                t.kind,
                t.profile is None,
                tuple(sorted(map(str, nexts[n]))),
                self._inlined(t),
            )
            for n, t in fast.items()
        )
        key = (self.sources, self.inline, self.plain, shape)
        codes = _FUSED.get(key)
        if codes is None:
            codes = _FUSED[key] = self._fused_code(fast, nexts)
            while len(_FUSED) > MAX_SHAPES:
                del _FUSED[next(iter(_FUSED))]
        for code in codes:
            exec(code, self.ns)  # generated from node names and the program's own tests

    def _inlined(self, table: Table) -> str | None:
        """The name of the action an entry-less table's node runs inline (part of its
        shape: the fused code depends on it), or None."""
        if table.entries or table.profile is not None or self._body(table.default) is None:
            return None
        return table.default.action.fn.__name__  # type: ignore[union-attr]

    def _fused_code(
        self, fast: dict[str, Table], nexts: dict[str, set[str | None]]
    ) -> list[types.CodeType]:
        """Compile the fused functions (see ``_fuse``)."""
        todo, done, out = list(self.starts), set(), []
        while todo:
            name = todo.pop()
            if name in done:
                continue
            done.add(name)
            if name in self.tables and name not in fast:  # a general table: go on after it
                hit, miss, by_action = self.links[name]
                todo += [n for n in (hit, miss, *by_action.values()) if n is not None]
                continue
            if name not in fast and name not in self.conds:
                continue
            exits: set[str | None] = set()
            body = self._emit(name, fast, nexts, [MAX_LINES], exits)
            source = f"def {name}(f, p):\n" + "".join(f"    {line}\n" for line in body)
            out.append(compile(source, f"<fastmatch:{name}>", "exec"))
            todo += [n for n in exits if n is not None]
        return out

    def _emit(
        self,
        name: str | None,
        fast: dict[str, Table],
        nexts: dict[str, set[str | None]],
        budget: list[int],
        exits: set[str | None],
    ) -> list[str]:
        """Source running node ``name`` and what follows it, ending in a ``return`` of the
        node to run next (noted in ``exits``) or None."""
        if name is None or name == EXIT:
            return ["return None"]
        inline = name in fast or name in self.conds
        if not inline or budget[0] <= 0:
            exits.add(name)
            return [f"return {name}"]
        if name in self.conds:
            test, yes, no = self.conds[name]
            budget[0] -= 2
            then = self._emit(yes, fast, nexts, budget, exits)
            other = self._emit(no, fast, nexts, budget, exits)
            return [f"if {test}:", *["    " + line for line in then], *other]
        lines, done, cost = self._part(name, fast[name])
        budget[0] -= cost
        if len(nexts[name]) == 1:
            (follow,) = nexts[name]
            return lines + self._emit(follow, fast, nexts, budget, exits)
        exits.update(nexts[name] - {EXIT})
        return [*lines, done]

    def _part(self, name: str, table: Table) -> tuple[list[str], str, int]:
        """Source of running node ``name`` up to choosing the next node, the line that
        returns the next node, and the lines counted against the budget (inlined action
        bodies too: fewer nodes per function, less code duplicated after conditionals,
        cheaper to compile at a rebuild)."""
        r = f"{PREFIX}{name}"
        if not table.entries and table.profile is None:
            body = self._body(table.default)
            if body is not None:
                pre = [f"d = {r}_m[1]"] if _USES_D.search("\n".join(body)) else []
                return [*pre, *body], f"return {r}_m[2]", 2 + len(body)
            lines = [f"if {r}_m[0](f, p, {r}_m[1]):", "    return None"]
            return lines, f"return {r}_m[2]", 2
        if not table.entries:
            lines = [f"r = {r}_m"]
        elif self._lpm1(table):  # the prefix lengths' dicts, longest first, in place
            lines = [
                f"v = {self._key(name, table, 1)}",
                f"for s, dd in {r}_lv:",
                "    r = dd.get(v >> s)",
                "    if r is not None:",
                "        break",
                "else:",
                f"    r = {r}_m",
            ]
        else:
            key = self._key(name, table)
            find = f"{r}_d.get({key})" if table.kind == "exact" else f"{r}_d.get({r}_lookup({key}))"
            lines = [f"r = {find}", "if r is None:", f"    r = {r}_m"]
        if table.profile is not None:  # an action selector group: pick its member
            lines += ["if r[0] is None:", f"    r = r[1][{r}_sel(f, p) % len(r[1])]"]
        run = self._dispatch(table)
        return [*lines, *run], "return r[2]", len(lines) + len(run)

    def _key(self, name: str, table: Table, part: int = 0) -> str:
        """Source of node ``name``'s lookup key (``part`` 0) or of its ``part``-th field
        (from 1): the key function's expressions in place (``FASTACTIONS``), else a call."""
        body = self.program.cg.bodies.get(table.keyfn) if self.inline else None
        if body and len(body) > part:
            return body[part]
        return f"{self.keyfn[name]}(f)" + (f"[{part - 1}]" if part else "")

    def _lpm1(self, table: Table) -> bool:
        """True for an LPM table on one key field (looked up in place when inlining)."""
        return self.inline and table.kind == "lpm" and len(table.keys) == 1

    def _body(self, e: Entry | None) -> list[str] | None:
        """The inlinable body of entry ``e``'s action (``exit``: the node returns None), or
        None when it is not a plain straight-line action (or inlining is off)."""
        if not self.inline or e is None or e.ref is not None or e.action is None:
            return None
        return self._fn_body(e.action.fn)

    def _fn_body(self, fn: Any) -> list[str] | None:
        return inlining.action_body(self.program.cg, fn, self.plain, PREFIX)

    def _dispatch(self, table: Table) -> list[str]:
        """Run the action of result ``r``: its body inlined when it is one of the table's
        straight-line actions, else a call."""
        call = ["if r[0](f, p, r[1]):", "    return None"]
        if not self.inline:
            return call
        bodies = [(a.fn.__name__, self._fn_body(a.fn)) for a in table.actions.values()]
        known = [(n, b) for n, b in bodies if b is not None][:MAX_DISPATCH]
        if not known:
            return call
        out = ["a = r[0]", "d = r[1]"]
        for i, (fname, body) in enumerate(known):
            out += [f"{'if' if i == 0 else 'elif'} a is {fname}:", *["    " + ln for ln in body]]
        return [*out, "elif a(f, p, d):", "    return None"]

    def _results(self, name: str, table: Table) -> None:
        """The namespace constants of node ``name``: its miss result and entry results."""
        r = f"{PREFIX}{name}"
        hit, miss, by_action = self.links[name]
        if table.profile is not None:
            sel = table.profile.selector
            self.ns[f"{r}_sel"] = getattr(sel, "h", sel)  # a Calculation: its generated function
        d = table.default
        if d is None:
            self.ns[f"{r}_m"] = (
                self.ns[PREFIX + "go"],
                (),
                self._get(miss),
            )
        else:
            self.ns[f"{r}_m"] = self._result(d, miss if table.hit_miss else None, by_action, table)
        nxt = hit if table.hit_miss else None
        if table.kind == "exact":
            self.ns[f"{r}_d"] = {
                e.match: self._result(e, nxt, by_action, table) for e in table.entries.values()
            }
        elif self._lpm1(table):  # as Table.lookup: (v >> shift,) per length, longest first
            self.ns[f"{r}_lv"] = [
                (shift, {k[0]: self._result(e, nxt, by_action, table) for k, e in d.items()})
                for _plen, shift, d in table._levels
            ]
        else:
            self.ns[f"{r}_lookup"] = table.lookup
            self.ns[f"{r}_d"] = {
                e: self._result(e, nxt, by_action, table) for e in table.entries.values()
            }

    def _result(
        self, e: Entry, fixed: str | None, by_action: dict[int, str | None], table: Table
    ) -> Any:
        """(action fn, data, next node) of running entry ``e`` (``fixed``: hit/miss next);
        for a selector group (None, its members' results, None)."""

        def act(action: ActionSpec | None, data: tuple[int, ...]) -> Result:
            if action is None:
                return (self.ns[PREFIX + "exit"], (), None)
            nxt = fixed if table.hit_miss else by_action.get(action.id)
            return (action.fn, data, self._get(nxt))

        ref = e.ref
        if isinstance(ref, Group):
            return (None, tuple(act(m.action, m.data) for m in ref.members), None)
        if isinstance(ref, Member):
            return act(ref.action, ref.data)
        return act(e.action, e.data)


def _actions(e: Entry | None) -> list[ActionSpec | None]:
    """The actions running entry ``e`` may run (a group: each member's)."""
    if e is None:
        return []
    if isinstance(e.ref, Group):
        return [m.action for m in e.ref.members]
    if isinstance(e.ref, Member):
        return [e.ref.action]
    return [e.action]


def _empty_group(table: Table) -> bool:
    """True when an entry points at a group without members (``Table.apply`` then runs the
    default entry and counts the miss: left to it)."""
    entries = [table.default, *table.entries.values()]
    return any(isinstance(e.ref, Group) and not e.ref.members for e in entries if e is not None)


def _conditionals(sources: list[str]) -> dict[str, tuple[str, str | None, str | None]]:
    """``{name: (test, true next, false next)}`` of the generated conditional nodes
    (``def nd_N(f, p): return A if test else B``), read back from their source."""
    out = {}
    for source in sources:
        if source.startswith("def nd_"):
            found = _conditional(source)
            if found is not None:
                out[found[0]] = found[1:]
    return out


@functools.lru_cache(maxsize=4096)
def _conditional(source: str) -> tuple[str, str, str | None, str | None] | None:
    """(name, test, true next, false next) of one conditional node's source, or None.

    Cached: every switch of a fabric compiles the same program to the same sources."""
    fn = ast.parse(source).body[0]
    if not (isinstance(fn, ast.FunctionDef) and len(fn.body) == 1):
        return None
    ret = fn.body[0]
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.IfExp)):
        return None
    yes, no = _target(ret.value.body), _target(ret.value.orelse)
    if yes == "?" or no == "?":
        return None
    return fn.name, ast.unparse(ret.value.test), yes, no


def _target(node: ast.expr) -> str | None:
    """A conditional's next node: its name, None (the pipeline ends) or "?" (not a node)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    return "?"


def _compile(ns: dict[str, Any], name: str, params: str, body: list[str]) -> Any:
    """``def name(params): body`` compiled in ``ns`` (the generated code's namespace)."""
    source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)
    exec(compile(source, f"<fastmatch:{name}>", "exec"), ns)  # generated: node names only
    return ns[name]
