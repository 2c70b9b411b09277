"""Declarations that shadow a parameter, refused as p4c refuses them.

p4c (``ResolveReferences``'s shadowing check) makes it an error, not a warning, when a
variable or constant declared inside a statement block (an ``apply`` block, an action or
function body, a parser state, any nested block) or a table property (``key``,
``actions``, ``size``...) has the name of a parameter it can see: the enclosing
control's or parser's (constructor parameters too), the action's or the function's. A
control- or parser-level declaration with a parameter's name, or an action parameter with
a control parameter's, is only a warning there and compiles here too.
"""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError
from emulator.p4c.frontend import ast as A


def check_shadowing(prog: A.Program) -> None:
    """Refuse block declarations and table properties named like a visible parameter."""
    for d in prog.decls:
        if isinstance(d, A.ActionDecl | A.FunctionDecl):
            _check_body(d.body, _names(d.params))
        elif isinstance(d, A.ControlDecl | A.ParserDecl):
            outer = (_names(d.params) | _names(d.ctor_params)) - _declared(d.locals)
            for loc in d.locals:
                if isinstance(loc, A.ActionDecl):
                    _check_body(loc.body, outer | _names(loc.params))
                elif isinstance(loc, A.TableDecl):
                    _check_table(loc, outer)
            if isinstance(d, A.ControlDecl):
                _check_body(d.body, outer)
            else:
                for state in d.states:
                    _check_body(state.stmts, outer)


def _names(params: tuple[A.Param, ...]) -> set[str]:
    return {p.name for p in params}


def _declared(stmts: tuple[A.Stmt, ...]) -> set[str]:
    """Names a control's or parser's own declarations bind (they hide its parameters)."""
    return {name for s in stmts if isinstance(name := getattr(s, "name", None), str)}


def _check_body(body: object, params: set[str]) -> None:
    if not params:
        return
    for n in A.nodes(body):
        if isinstance(n, A.VarDecl | A.ConstDecl) and n.name in params:
            raise CompileError(n.pos, f"declaration of '{n.name}' shadows a parameter '{n.name}'")


def _check_table(table: A.TableDecl, params: set[str]) -> None:
    for prop in table.props:
        if prop.name in params:
            raise CompileError(
                prop.pos,
                f"{table.name}: property '{prop.name}' shadows a parameter '{prop.name}'",
            )
