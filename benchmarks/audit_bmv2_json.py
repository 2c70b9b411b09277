"""Audit the BMv2 JSON forms the real p4c-bm2-ss emits, and whether the built-in target loads them.

    python benchmarks/audit_bmv2_json.py --samples ~/p4c/testdata/p4_16_samples
    python benchmarks/audit_bmv2_json.py --json prog1.json prog2.json

Compiles every v1model program of ``--samples`` with p4c-bm2-ss (or reads ``--json`` files),
walks each JSON and lists every form it uses: primitive op names, expression operators and
operand types (in actions, conditionals, keys, parser ops and transitions), parser ops and
extract targets, transition kinds, parse value sets, calculation algorithms and inputs,
checksums, register/counter/meter forms (direct or not), field/learn list elements, extern
instances, table types, match kinds and action profiles.

Each form is then marked ``ok`` when at least one program using it loads on the built-in
target, and ``FAILS`` when every program using it is refused at load time (with the refusal).
Loading is not behaving: the STF runs of ``conformance_p4c_samples.py`` measure behaviour.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from emulator.target.errors import ProgramError  # noqa: E402
from emulator.target.pipeline import CompiledProgram  # noqa: E402

Form = tuple[str, str]  # (category, name)


def _operands(tv: Any) -> Iterator[Form]:
    """Operand types and expression operators inside a type-value (recursively)."""
    if isinstance(tv, list):
        for item in tv:
            yield from _operands(item)
        return
    if not isinstance(tv, dict):
        return
    kind = tv.get("type")
    if "op" in tv and kind is None:  # an operator node {"op", "left", "right"[, "cond"]}
        yield ("expression-op", str(tv["op"]))
        for part in ("left", "right", "cond"):
            yield from _operands(tv.get(part))
        return
    if kind is None:
        return
    yield ("operand", str(kind))
    value = tv.get("value")
    if kind == "expression":
        if isinstance(value, dict) and "op" not in value:
            yield ("expression-op", "(wrapped operand)")
        yield from _operands(value)
    elif kind in ("register", "lookahead") or isinstance(value, (dict, list)):
        yield from _operands(value)


def _actions(doc: dict[str, Any]) -> Iterator[Form]:
    for action in doc.get("actions", []):
        for prim in action.get("primitives", []):
            yield ("primitive", str(prim.get("op")))
            yield from _operands(prim.get("parameters", []))


def _parsers(doc: dict[str, Any]) -> Iterator[Form]:
    for parser in doc.get("parsers", []):
        for state in parser.get("parse_states", []):
            for op in state.get("parser_ops", []):
                kind, params = str(op.get("op")), op.get("parameters", [])
                yield ("parser-op", kind)
                if kind.startswith("extract") and params:
                    yield ("extract-target", f"{kind}:{params[0].get('type')}")
                if kind == "primitive" and params:
                    yield ("primitive", str(params[0].get("op")))
                    yield from _operands(params[0].get("parameters", []))
                else:
                    yield from _operands(params)
            for key in state.get("transition_key", []):
                yield ("transition-key", str(key.get("type")))
                yield from _operands(key)
            for t in state.get("transitions", []):
                ttype = t.get("type") or ("default" if t.get("value") == "default" else "hexstr")
                yield ("transition", str(ttype) + (" masked" if t.get("mask") else ""))
    for _ in doc.get("parse_vsets", []):
        yield ("parse-vset", "parse_vsets")


def _tables(doc: dict[str, Any]) -> Iterator[Form]:
    for pipe in doc.get("pipelines", []):
        for prof in pipe.get("action_profiles", []):
            yield ("action-profile", "selector" if prof.get("selector") else "plain")
        for t in pipe.get("tables", []):
            yield ("table-type", str(t.get("type", "simple")))
            for k in t.get("key", []):
                yield ("match-type", str(k.get("match_type")))
                if k.get("mask") is not None:
                    yield ("match-type", "masked key")
            if t.get("with_counters"):
                yield ("table", "direct counters")
            if t.get("direct_meters"):
                yield ("table", "direct meter")
            if t.get("entries"):
                yield ("table", "const entries")
            nxt = t.get("next_tables", {})
            if "__HIT__" in nxt or "__MISS__" in nxt:
                yield ("table", "next_tables hit/miss")
        for c in pipe.get("conditionals", []):
            yield ("control", "conditional")
            yield from _operands(c.get("expression"))
        for _ in pipe.get("action_calls", []):
            yield ("control", "action_call")


def _state(doc: dict[str, Any]) -> Iterator[Form]:
    for r in doc.get("register_arrays", []):
        yield (
            "register",
            f"register_array bitwidth {'>64' if r.get('bitwidth', 0) > 64 else '<=64'}",
        )
    for c in doc.get("counter_arrays", []):
        yield ("counter", "direct" if c.get("is_direct") else "indexed")
    for m in doc.get("meter_arrays", []):
        kind = "direct" if m.get("is_direct") else "indexed"
        yield ("meter", f"{kind} {m.get('type', 'packets')}")
    for calc in doc.get("calculations", []):
        yield ("calculation-algo", str(calc.get("algo")))
        for item in calc.get("input", []):
            yield ("calculation-input", str(item.get("type")))
    for ck in doc.get("checksums", []):
        yield ("checksum", str(ck.get("type", "generic")))
        if ck.get("if_cond") is not None:
            yield from _operands(ck["if_cond"])
    for kind in ("field_lists", "learn_lists"):
        for fl in doc.get(kind, []):
            for e in fl.get("elements", []):
                yield (kind.rstrip("s").replace("_", "-") + "-element", str(e.get("type")))
    for ext in doc.get("extern_instances", []):
        yield ("extern", str(ext.get("type")))
    for key, label in (("header_union_stacks", "header union stack"), ("header_unions", "header union"),
                       ("header_stacks", "header stack")):  # fmt: skip
        if doc.get(key):
            yield ("headers", label)
    if any(f[1] == "*" for ht in doc.get("header_types", []) for f in ht.get("fields", [])):
        yield ("headers", "varbit field")


def forms(doc: dict[str, Any]) -> set[Form]:
    """Every form ``doc`` uses."""
    return {*_actions(doc), *_parsers(doc), *_tables(doc), *_state(doc)}


def load_error(doc: dict[str, Any]) -> str:
    """'' when the built-in target loads ``doc``, else its refusal."""
    try:
        CompiledProgram(doc, log=lambda _m: None)
    except ProgramError as exc:
        return str(exc).splitlines()[0][:200]
    return ""


def audit(docs: dict[str, dict[str, Any]]) -> dict[Form, dict[str, Any]]:
    """For each form: the programs using it and whether any of them loads."""
    errors = {name: load_error(doc) for name, doc in docs.items()}
    table: dict[Form, dict[str, Any]] = defaultdict(lambda: {"programs": [], "ok": False})
    for name, doc in docs.items():
        for form in forms(doc):
            table[form]["programs"].append(name)
            table[form]["ok"] |= not errors[name]
    for row in table.values():
        row["errors"] = sorted({errors[n] for n in row["programs"] if errors[n]})
    return dict(table)


def compile_samples(directory: Path, work: Path) -> dict[str, dict[str, Any]]:
    """p4c-bm2-ss's JSON of every v1model program of ``directory`` that compiles."""
    docs = {}
    for p4 in sorted(directory.glob("*.p4")):
        if "v1model.p4" not in p4.read_text(errors="replace"):
            continue
        out = work / (p4.stem + ".json")
        argv = ["p4c-bm2-ss", "--arch", "v1model", "-I", str(directory), "-o", str(out), str(p4)]
        try:
            subprocess.run(argv, capture_output=True, timeout=180, check=False)
        except subprocess.TimeoutExpired:
            continue
        if out.exists():
            docs[p4.name] = json.loads(out.read_text())
    return docs


def report(table: dict[Form, dict[str, Any]], ndocs: int) -> None:
    """Print the forms, grouped by category, and the refusals."""
    print(f"{ndocs} JSON programs, {len(table)} forms")
    for (cat, name), row in sorted(table.items()):
        status = "ok" if row["ok"] else "FAILS"
        print(f"{status:5} {cat:20} {name:34} in {len(row['programs'])}")
    bad = {e for row in table.values() if not row["ok"] for e in row["errors"]}
    for err in sorted(bad):
        print(f"refused: {err}")
    print(f"forms refused everywhere: {sum(not r['ok'] for r in table.values())}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=Path, help="a directory of v1model .p4 programs")
    ap.add_argument("--json", type=Path, nargs="*", default=[], help="BMv2 JSON files")
    ap.add_argument("--out", type=Path, help="also write the audit table here (JSON)")
    args = ap.parse_args(argv)
    if args.samples is not None and not args.samples.is_dir():
        print(f"{args.samples}: not a directory", file=sys.stderr)
        return 2
    docs: dict[str, dict[str, Any]] = {}
    for path in args.json:
        try:
            docs[path.name] = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            return 2
    if args.samples is not None:
        with tempfile.TemporaryDirectory(prefix="fabemu-audit-") as tmp:
            docs.update(compile_samples(args.samples, Path(tmp)))
    if not docs:
        print("nothing to audit: give --samples DIR or --json FILES", file=sys.stderr)
        return 2
    table = audit(docs)
    report(table, len(docs))
    if args.out:
        rows = [{"category": c, "form": n, **r} for (c, n), r in sorted(table.items())]
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
