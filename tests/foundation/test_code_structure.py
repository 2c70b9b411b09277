"""The code's shape: no import cycle, no module over 500 lines, no function over 80.

Imports are read from the source (function-local ones included, ``if TYPE_CHECKING:``
blocks skipped), so a cycle hidden by a function-local import is still found.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "emulator"
# Packages held to the limits below: all of them.
SCOPE = ("emulator",)
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _in_scope(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in SCOPE)


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, outside ``if TYPE_CHECKING:`` blocks."""
    out: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _targets(node: ast.Import | ast.ImportFrom, name: str, path: Path, mods: dict[str, Path]):
    """Modules of ``emulator`` an import statement loads (``from pkg import mod`` is pkg.mod)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in mods]
    base = node.module or ""
    if node.level:
        pkg = _package_of(name, path).split(".")
        pkg = pkg[: len(pkg) - node.level + 1]
        base = ".".join([*pkg, base] if base else pkg)
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        if sub in mods:
            out.append(sub)
        elif base in mods:
            out.append(base)
    return out


def import_graph() -> nx.DiGraph:
    """Module -> imported module, for every module of the ``emulator`` package."""
    mods = _modules()
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _import_nodes(tree):
            for target in _targets(node, name, path, mods):
                if target != name:
                    g.add_edge(name, target)
    return g


def test_the_graph_sees_function_local_imports() -> None:
    """The walker must find imports inside functions (else a hidden cycle goes unseen)."""
    tree = ast.parse(
        "def f():\n    from emulator.p4c import ast\nif TYPE_CHECKING:\n    import x\n"
    )
    found = _import_nodes(tree)
    assert [type(n).__name__ for n in found] == ["ImportFrom"]
    assert ("emulator.p4c.compiler", "emulator.p4c.diagnostics") in import_graph().edges


def test_no_import_cycles() -> None:
    g = import_graph().subgraph([n for n in _modules() if _in_scope(n)])
    tangles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not tangles, "modules importing each other in a circle:\n" + "\n".join(
        ", ".join(c) for c in tangles
    )


def _scoped_files() -> list[tuple[str, Path]]:
    return [(n, p) for n, p in _modules().items() if _in_scope(n)]


@pytest.mark.parametrize("scope", SCOPE)
def test_scope_has_modules(scope: str) -> None:
    assert any(n.startswith(scope) for n, _ in _scoped_files())


def test_modules_under_the_line_limit() -> None:
    big = {}
    for name, path in _scoped_files():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_MODULE_LINES:
            big[name] = n
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def long_functions(path: Path) -> dict[str, int]:
    """Functions (and methods, nested ones too) longer than the limit, with their length."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                out[f"{path.name}:{node.lineno} {node.name}"] = n
    return out


def test_functions_under_the_line_limit() -> None:
    long = {k: v for _, p in _scoped_files() for k, v in long_functions(p).items()}
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


# the P4 compiler's layers, top to bottom: each imports only the ones before it
P4C_LAYERS = ("frontend", "lowering", "arch", "backend")


def test_p4c_layers_import_only_earlier_layers() -> None:
    def layer(mod: str) -> int | None:
        parts = mod.split(".")
        if parts[:2] != ["emulator", "p4c"] or len(parts) < 3 or parts[2] not in P4C_LAYERS:
            return None
        return P4C_LAYERS.index(parts[2])

    wrong = [
        (a, b)
        for a, b in import_graph().edges
        if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)  # type: ignore[operator]
    ]
    assert not wrong, f"imports from a later compiler layer: {wrong}"
