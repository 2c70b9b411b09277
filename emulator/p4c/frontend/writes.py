"""What a block of statements writes, read from the AST (no lowering).

Two users:
- ``check_read_only``: an ``in`` parameter (and an action's directionless one) cannot be
  written, as p4c says ("cannot be the target of an assignment"): assignment targets and
  receivers of ``setValid``/``setInvalid``/``push_front``/``pop_front`` rooted at one are
  refused at ``file:line:col``.
- ``may_write``: the storage a table action's body may write other than through its own
  parameters (``lowering/table_actions.py`` copies a bound argument it overlaps, as P4's
  copy-in/copy-out says). Conservative: every argument of every call counts as written,
  and actions called directly add what they write.

Storage is a path of names (``hdr.s[i].v`` -> ``("hdr", "s", "[]", "v")``), any index and
``next``/``last`` being one ``[]`` element; two paths overlap when one is a prefix of the
other, ``[]`` matching any index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A

Path = tuple[str, ...]

HEADER_WRITERS = frozenset({"setValid", "setInvalid", "push_front", "pop_front"})
_STACK_MEMBERS = frozenset({"next", "last"})


def path_of(e: A.Expr) -> Path | None:
    """The storage path ``e`` names, or None when it is not a name, member, index or slice."""
    if isinstance(e, A.Name):
        return (e.name,)
    if isinstance(e, A.Member):
        base = path_of(e.expr)
        if base is None:
            return None
        return (*base, "[]" if e.name in _STACK_MEMBERS else e.name)
    if isinstance(e, A.Index):
        base = path_of(e.expr)
        return None if base is None else (*base, "[]")
    if isinstance(e, A.Slice):
        return path_of(e.expr)
    return None


def overlap(a: Path, b: Path) -> bool:
    """Whether storage paths ``a`` and ``b`` may share bits."""
    return all(x == y or "[]" in (x, y) for x, y in zip(a, b, strict=False))


def read_paths(e: object) -> list[Path]:
    """The storage paths an expression reads: its own path (with those in its run-time
    indices), or those of its operands."""
    own = path_of(e) if isinstance(e, A.Expr) else None
    if own is not None:
        return [
            own,
            *[p for n in A.nodes(e) if isinstance(n, A.Index) for p in read_paths(n.index)],
        ]
    return [p for c in A.children(e) for p in read_paths(c)]


def _declared(x: object) -> set[str]:
    """Names of the locals declared anywhere under ``x`` (they may shadow parameters)."""
    return {n.name for n in A.nodes(x) if isinstance(n, A.VarDecl | A.ConstDecl)}


Callee = Callable[[A.Call], "tuple[A.Param, ...] | None"]


def _no_callee(call: A.Call) -> tuple[A.Param, ...] | None:
    return None


def assigned(x: object, callee: Callee = _no_callee) -> Iterator[A.Expr]:
    """Expressions certainly written under ``x``: assignment targets, header-method
    receivers, and arguments given to ``out``/``inout`` parameters of the calls whose
    parameters ``callee`` knows."""
    for n in A.nodes(x):
        if isinstance(n, A.Assign):
            yield n.lhs
        elif isinstance(n, A.Call):
            if isinstance(n.func, A.Member) and n.func.name in HEADER_WRITERS:
                yield n.func.expr
            params = callee(n)
            if params is None:
                continue
            by_name = {p.name: p for p in params}
            for i, a in enumerate(n.args):
                p = by_name.get(a.name) if a.name else (params[i] if i < len(params) else None)
                if p is not None and p.direction in ("out", "inout"):
                    yield a.value


def _refuse_writes(x: object, read_only: set[str], callee: Callee) -> None:
    names = read_only - _declared(x)
    for e in assigned(x, callee):
        p = path_of(e)
        if p is not None and p[0] in names:
            raise CompileError(
                e.pos,
                f"{A.expr_text(e)} cannot be written: parameter '{p[0]}' is read-only "
                "(not out or inout)",
            )


def _read_only(params: tuple[A.Param, ...], directionless: bool) -> set[str]:
    dirs = ("in", "") if directionless else ("in",)
    return {p.name for p in params if p.direction in dirs}


class _Callees:
    """The parameters of what a call names: functions, actions, extern functions, and
    methods of extern instances and extern-typed parameters (by their declared type)."""

    def __init__(self, prog: A.Program) -> None:
        self.externs = {d.name: d for d in prog.decls if isinstance(d, A.ExternDecl)}
        self.funcs: dict[str, tuple[A.Param, ...]] = {}
        for d in prog.decls:
            if isinstance(d, A.FunctionDecl | A.ActionDecl):
                self.funcs[d.name] = d.params
            elif isinstance(d, A.ExternDecl) and d.func is not None:
                self.funcs[d.name] = d.func.params
        self.types = {d.name: d.type.name for d in prog.decls if isinstance(d, A.Instance)}

    def inside(self, block: A.ControlDecl | A.ParserDecl) -> Callee:
        """The resolver for calls inside ``block`` (its actions, instances and parameters)."""
        funcs = dict(self.funcs)
        types = dict(self.types)
        types.update({p.name: p.type.name for p in block.params})
        for loc in block.locals:
            if isinstance(loc, A.ActionDecl):
                funcs[loc.name] = loc.params
            elif isinstance(loc, A.Instance):
                types[loc.name] = loc.type.name

        def callee(call: A.Call) -> tuple[A.Param, ...] | None:
            f = call.func
            if isinstance(f, A.Name):
                return funcs.get(f.name)
            if isinstance(f, A.Member) and isinstance(f.expr, A.Name):
                ext = self.externs.get(types.get(f.expr.name, ""))
                if ext is None:
                    return None
                found = [
                    m.params
                    for m in ext.methods
                    if m.name == f.name and len(m.params) == len(call.args)
                ]
                return found[0] if len(found) == 1 else None
            return None

        return callee

    def top(self) -> Callee:
        """The resolver for top-level functions and actions."""
        return lambda call: (
            self.funcs.get(call.func.name) if isinstance(call.func, A.Name) else None
        )


def _check_action(decl: A.ActionDecl, outer: set[str], callee: Callee) -> None:
    own = {p.name for p in decl.params}
    _refuse_writes(decl.body, (outer - own) | _read_only(decl.params, True), callee)


def check_read_only(prog: A.Program) -> None:
    """Refuse writes to ``in`` parameters of controls, parsers, actions and functions."""
    callees = _Callees(prog)
    for d in prog.decls:
        if isinstance(d, A.ActionDecl):
            _check_action(d, set(), callees.top())
        elif isinstance(d, A.FunctionDecl):
            _refuse_writes(d.body, _read_only(d.params, True), callees.top())
        elif isinstance(d, A.ControlDecl | A.ParserDecl):
            outer = _read_only(d.params, False)
            callee = callees.inside(d)
            for loc in d.locals:
                if isinstance(loc, A.ActionDecl):
                    _check_action(loc, outer, callee)
            others = [loc for loc in d.locals if not isinstance(loc, A.ActionDecl)]
            body = d.body if isinstance(d, A.ControlDecl) else d.states
            _refuse_writes([others, body], outer, callee)


def may_write(
    body: A.Stmt, params: set[str], action: Callable[[str], A.ActionDecl | None]
) -> list[Path]:
    """Storage ``body`` may write other than through ``params`` (conservative): assignment
    targets, header-method receivers, every lvalue argument of a call, and what the actions
    it calls by name (``action(name)`` gives their declaration) write."""
    out: list[Path] = []
    seen: set[str] = set()

    def walk(x: object, own: set[str]) -> None:
        exprs = list(assigned(x))
        for n in A.nodes(x):
            if not isinstance(n, A.Call):
                continue
            exprs.extend(a.value for a in n.args)
            if isinstance(n.func, A.Name) and n.func.name not in seen:
                decl = action(n.func.name)
                if decl is not None:
                    seen.add(n.func.name)
                    walk(decl.body, {p.name for p in decl.params})
        for e in exprs:
            p = path_of(e)
            if p is not None and p[0] not in own:
                out.append(p)

    walk(body, params)
    return out
