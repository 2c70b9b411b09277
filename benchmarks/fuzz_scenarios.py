"""Fuzz scenario files through ``fabemu validate`` and a sample through ``fabemu run``.

Each case mutates a shipped scenario (``scenarios/*.yaml``): wrong types, missing keys,
huge or negative numbers, unknown hosts, bad expectations, a mutated topology file, broken
YAML, deep nesting, non-UTF-8 bytes. Every mutant goes through ``fabemu validate``
in-process; up to ``--runs`` of those that validate go through ``fabemu run --runtime
virtual --wall-limit W``. Counted as failures: an escaped exception (traceback), a case
running past its limit (hang), and a run whose ``result.json`` records an internal error.

Usage: ``python benchmarks/fuzz_scenarios.py [--cases 500] [--runs 30] [--seed 1]``.
Exit 1 if any failure.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml
from fuzzlib import LAST_OUTPUT, flip_bytes, mutate_lines, report, run_cli

ROOT = Path(__file__).resolve().parent.parent
CLASSES = (
    "type", "missing", "number", "host", "expect", "topology", "broken", "nesting", "utf8",
)  # fmt: skip
WRONG = ("text", "", [], [1, 2], {}, {"a": 1}, True, None, 1.5, -1, "h0")
NUMBERS = (-1, 0, -(10**30), 10**30, 2**63, 1e308, float("inf"), float("nan"), 10**9, 3)
HOSTS = ("h99999", "", "h-1", "H0", "h0 ", "rtsw0", 7)
_INTERNAL = re.compile(r"^(\w+Error|\w+Exception|collecting results failed|computing summary)")


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in a parsed YAML document."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any, delete: bool = False) -> None:
    node = doc
    for k in path[:-1]:
        node = node[k]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value


def _structured(doc: dict[str, Any], cls: str, rng: random.Random) -> None:
    """Mutate the parsed scenario in place."""
    paths = _paths(doc)
    if cls == "type":
        _set(doc, rng.choice(paths), rng.choice(WRONG))
    elif cls == "missing":
        _set(doc, rng.choice(paths), None, delete=True)
    elif cls == "number":
        numeric = [p for p in paths if isinstance(_get(doc, p), int | float)] or paths
        _set(doc, rng.choice(numeric), rng.choice(NUMBERS))
    elif cls == "host":
        hosts = [p for p in paths if re.fullmatch(r"h\d+", str(_get(doc, p)))]
        if hosts:
            _set(doc, rng.choice(hosts), rng.choice(HOSTS))
        else:
            doc["workload"] = {"kind": "incast", "senders": ["h1"], "receiver": "h99999"}
    elif cls == "expect":
        name = rng.choice(("", " ", "nosuch_metric", "drops", "completed", "busbw_gbps"))
        bound = rng.choice(({"min": 3, "max": 1}, {"eq": 5, "max": 1}, {}, {"min": "x"},
                            {"min": float("nan")}, {"max": 1e400}, None, 3))  # fmt: skip
        doc["expect"] = {name: bound}


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _topology(work: Path, doc: dict[str, Any], i: int, rng: random.Random) -> None:
    """Point the scenario at a mutated copy of its topology."""
    src = (work / "scenarios" / doc["topology"]).resolve()
    topo = yaml.safe_load(src.read_text())
    key = rng.choice(sorted(topo))
    topo[key] = rng.choice((*NUMBERS, *WRONG, 2**63, "2^63"))
    dst = work / "scenarios" / f"topo-{i}.yaml"
    dst.write_text(yaml.safe_dump(topo))
    doc["topology"] = dst.name


def _text(data: bytes, cls: str, rng: random.Random) -> bytes:
    """Text-level mutations: broken YAML, deep nesting, non-UTF-8 bytes."""
    if cls == "utf8":
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.randrange(0x80, 0x100)]) + data[at:]
    if cls == "nesting":
        d = rng.choice((100, 1000, 5000, 50000))
        deep = rng.choice(("[" * d + "]" * d, "{a: " * d + "1" + "}" * d, "- " * d + "1"))
        return data + f"\ndeep: {deep}\n".encode()
    op = rng.choice(("bytes", "lines", "truncate", "junk"))
    if op == "bytes":
        return flip_bytes(data, rng, rng.randint(1, 4))
    if op == "lines":
        return mutate_lines(data.decode(), rng).encode()
    if op == "truncate":
        return data[: rng.randrange(len(data))]
    junk = rng.choice((": [", "\t- x", "&a [*a]", "!!python/object:os.system x", "{", "'"))
    at = rng.randrange(len(data))
    return data[:at] + junk.encode() + data[at:]


def make_mutant(work: Path, base: Path, i: int, cls: str, rng: random.Random) -> Path:
    """Write mutant ``i`` of ``base`` (class ``cls``) into the scenarios folder of ``work``."""
    data = base.read_bytes()
    if cls in ("broken", "nesting", "utf8"):
        out = _text(data, cls, rng)
    else:
        doc = yaml.safe_load(data)
        if cls == "topology":
            _topology(work, doc, i, rng)
        else:
            _structured(doc, cls, rng)
        out = yaml.safe_dump(doc).encode()
    path = work / "scenarios" / f"mutant-{i}.yaml"
    path.write_bytes(out)
    return path


def run_one(path: Path, out: Path, wall_limit: float) -> str:
    """``fabemu run --runtime virtual`` on a validated mutant; an internal error counts."""
    outcome = run_cli(
        ["run", str(path), "--runtime", "virtual", "--wall-limit", str(wall_limit),
         "--out", str(out)], int(wall_limit) + 120,
    )  # fmt: skip
    if outcome == "exit 2":  # validate said it could run
        print(f"  {path.name} validated but run refused it: {LAST_OUTPUT[0].strip()[-300:]}")
        return "exit 2 without a start after validate ok"
    try:
        reason = json.loads((out / "result.json").read_text())["meta"].get("incomplete_reason")
    except (OSError, ValueError, KeyError):
        return outcome
    if reason and _INTERNAL.match(reason):
        print(f"  internal error in {path.name}: {reason[:200]}")
        return f"{outcome} without a clean result (internal error)"
    return outcome


def main(argv: list[str] | None = None) -> int:
    """Validate every mutant, run a sample, print the counts."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--runs", type=int, default=30, help="validated mutants to run")
    ap.add_argument("--wall-limit", type=float, default=60.0, help="fabemu run --wall-limit")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    runs: Counter[str] = Counter()
    run_class: dict[str, Counter[str]] = defaultdict(Counter)
    with tempfile.TemporaryDirectory(prefix="fuzz-scenarios-") as tmp:
        work = Path(tmp)
        for d in ("scenarios", "topologies", "p4"):
            shutil.copytree(ROOT / d, work / d)
        bases = sorted((work / "scenarios").glob("*.yaml"))
        valid: list[tuple[str, Path]] = []
        for i in range(args.cases):
            cls = CLASSES[i % len(CLASSES)]
            path = make_mutant(work, rng.choice(bases), i, cls, rng)
            outcome = run_cli(["validate", str(path)], 60)
            counts[outcome] += 1
            by_class[cls][outcome] += 1
            if outcome == "exit 0":
                valid.append((cls, path))
        for cls, path in rng.sample(valid, min(args.runs, len(valid))):
            outcome = run_one(path, work / "runs" / path.stem, args.wall_limit)
            runs[outcome] += 1
            run_class[cls][outcome] += 1
    bad = report("fabemu validate", counts, by_class)
    bad += report("fabemu run --runtime virtual", runs, run_class)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
