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

import types
from collections.abc import Callable
from typing import Any

from emulator.target.tables import Entry, Table

PREFIX = "_fm_"  # names this module puts in the generated-code namespace
Result = tuple[Callable[..., Any], tuple[int, ...], Any]  # (action fn, data, next node)


def _original_nodes(ns: dict[str, Any]) -> dict[int, str]:
    """id(node object) -> its name, for every control-flow node in ``ns``."""
    return {id(obj): name for name, obj in ns.items() if name.startswith("nd_")}


def _table_of(obj: Any) -> Table | None:
    if isinstance(obj, types.MethodType) and isinstance(obj.__self__, Table):
        return obj.__self__
    return None


def specialisable(table: Table) -> bool:
    """True when the table's ``apply`` reduces to lookup + action + next node."""
    return (
        table.profile is None
        and not table.with_counters
        and table.meter_factory is None
        and table.meter_slot is None
    )


class FastTables:
    """The specialised table nodes of one compiled program (see the module doc)."""

    def __init__(self, program: Any) -> None:
        self.program = program
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
        for name, obj in list(self.ns.items()):
            table = _table_of(obj) if name.startswith("nd_") else None
            if table is None:
                continue
            self.tables[name] = table
            self.keyfn[name] = keyfns[id(table.keyfn)]

            def ref(node: Any) -> str | None:
                return None if node is None else names[id(node)]

            by_action = {aid: ref(nxt) for aid, nxt in table.next_by_action.items()}
            self.links[name] = (ref(table.next_hit), ref(table.next_miss), by_action)
            prev = table.changed
            table.changed = self._chain(prev)
        self._originals = {name: self.ns[name] for name in self.tables}
        self.ns[PREFIX + "exit"] = _compile(self.ns, PREFIX + "exit", "f, p, d", ["return True"])
        self.ns[PREFIX + "go"] = _compile(self.ns, PREFIX + "go", "f, p, d", ["return False"])
        program.ingress = self._trampoline("ingress", names, program.ingress)
        program.egress = self._trampoline("egress", names, program.egress)

    def _chain(self, prev: Callable[[], None]) -> Callable[[], None]:
        def changed() -> None:
            prev()
            self.dirty = True

        return changed

    def watch_changes(self) -> None:
        """Hook ``changed`` of every table again (after another module replaced it)."""
        for table in self.tables.values():
            table.changed = self._chain(table.changed)

    def _trampoline(self, which: str, names: dict[int, str], start: Any) -> Any:
        """A first node that rebuilds if needed, then returns the pipeline's real first node."""
        if start is None:
            return None
        first = names[id(start)]
        ns = self.ns

        def begin(_f: list[int], _p: Any) -> Any:
            if self.dirty:
                self.rebuild()
            return ns[first]

        begin.__name__ = f"{which}_start"
        return begin

    # -- building --------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Regenerate every specialised node from the tables' current entries."""
        self.dirty = False
        self.rebuilds += 1
        ns = self.ns
        fast = {n: t for n, t in self.tables.items() if specialisable(t)}
        for name, table in self.tables.items():  # functions first: results name them
            if name in fast:
                ns[name] = self._node(name, table)
            else:
                ns[name] = self._originals[name]
        for name, table in self.tables.items():
            if name in fast:
                self._results(name, table)
            else:
                hit, miss, by_action = self.links[name]
                table.next_hit, table.next_miss = self._get(hit), self._get(miss)
                table.next_by_action = {a: self._get(n) for a, n in by_action.items()}

    def _get(self, name: str | None) -> Any:
        return None if name is None else self.ns[name]

    def _node(self, name: str, table: Table) -> Any:
        r = f"{PREFIX}{name}"
        if not table.entries:
            body = [f"if {r}_m[0](f, p, {r}_m[1]):", "    return None", f"return {r}_m[2]"]
        else:
            if table.kind == "exact":
                find = f"{r}_d.get({self.keyfn[name]}(f))"
            else:
                find = f"{r}_d.get({r}_lookup({self.keyfn[name]}(f)))"
            body = [
                f"r = {find}",
                "if r is None:",
                f"    r = {r}_m",
                "if r[0](f, p, r[1]):",
                "    return None",
                "return r[2]",
            ]
        return _compile(self.ns, name, "f, p", body)

    def _results(self, name: str, table: Table) -> None:
        """The namespace constants of node ``name``: its miss result and entry results."""
        r = f"{PREFIX}{name}"
        hit, miss, by_action = self.links[name]
        d = table.default
        if d is None:
            self.ns[f"{r}_m"] = (
                self.ns[PREFIX + "go"],
                (),
                self._get(miss if table.hit_miss else None),
            )
        else:
            self.ns[f"{r}_m"] = self._result(d, miss if table.hit_miss else None, by_action, table)
        nxt = hit if table.hit_miss else None
        if table.kind == "exact":
            self.ns[f"{r}_d"] = {
                e.match: self._result(e, nxt, by_action, table) for e in table.entries.values()
            }
        else:
            self.ns[f"{r}_lookup"] = table.lookup
            self.ns[f"{r}_d"] = {
                e: self._result(e, nxt, by_action, table) for e in table.entries.values()
            }

    def _result(
        self, e: Entry, fixed: str | None, by_action: dict[int, str | None], table: Table
    ) -> Result:
        """(action fn, data, next node) of running entry ``e`` (``fixed``: hit/miss next)."""
        if e.action is None:
            return (self.ns[PREFIX + "exit"], (), None)
        nxt = fixed if table.hit_miss else by_action.get(e.action.id)
        return (e.action.fn, e.data, self._get(nxt))


def _compile(ns: dict[str, Any], name: str, params: str, body: list[str]) -> Any:
    """``def name(params): body`` compiled in ``ns`` (the generated code's namespace)."""
    source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body)
    exec(compile(source, f"<fastmatch:{name}>", "exec"), ns)  # generated from node names only
    return ns[name]
