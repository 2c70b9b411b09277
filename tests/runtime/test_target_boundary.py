"""The runtimes use the built-in target through its public interface only.

No class in ``emulator.runtime`` derives from a class of ``emulator.target`` (the virtual
runtime watches the traffic manager through ``tm.observer``, it does not subclass it), and
no code there reads ``x._name`` where ``_name`` is private state or a private method of a
target class. Checked on the source (AST), so a new runtime file is covered too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "emulator" / "target"
RUNTIME = ROOT / "emulator" / "runtime"


def _private_names(tree: ast.AST) -> set[str]:
    """``_name`` methods, class attributes and ``self._name`` attributes of every class."""
    out: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                out.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def target_private_names() -> set[str]:
    """Private names defined in the classes of ``emulator/target``."""
    names: set[str] = set()
    for path in TARGET.glob("*.py"):
        names |= _private_names(ast.parse(path.read_text(), str(path)))
    return names


def violations(source: str, filename: str, private: set[str]) -> list[str]:
    """Where ``source`` subclasses a target class or reads a target class's private name."""
    tree = ast.parse(source, filename)
    from_target: set[str] = set()  # local names bound to emulator.target modules or objects
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("emulator.target"):
            from_target |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            from_target |= {
                a.asname or a.name.split(".")[0]
                for a in node.names
                if a.name.startswith("emulator.target")
            }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                root = base
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in from_target:
                    out.append(
                        f"{filename}:{node.lineno}: class {node.name} subclasses a target class"
                    )
        elif isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                out.append(f"{filename}:{node.lineno}: reads target-private .{node.attr}")
    return out


def test_the_check_finds_what_it_forbids() -> None:
    private = target_private_names()
    assert {"_ports", "_clock", "_std"} <= private
    bad = (
        "from emulator.target.tm import TrafficManager\n"
        "import emulator.target.switch as tsw\n"
        "class A(TrafficManager): pass\n"
        "class B(tsw.Switch): pass\n"
        "def f(tm): return tm._ports\n"
        "class C:\n    def g(self): return self._ports\n"
    )
    found = violations(bad, "bad.py", private)
    assert [v.split(": ", 1)[0] for v in found] == ["bad.py:3", "bad.py:4", "bad.py:5"]


def test_runtimes_use_the_target_through_its_public_interface() -> None:
    private = target_private_names()
    found = [
        v
        for path in sorted(RUNTIME.rglob("*.py"))
        for v in violations(path.read_text(), str(path.relative_to(ROOT)), private)
    ]
    assert found == []
