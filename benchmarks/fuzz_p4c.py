"""Fuzz ``fabemu p4c`` with mutated P4 programs; count Python tracebacks (must be 0).

Each case takes a shipped program (``p4/roce_fabric.p4`` or one of ``p4/corpus``) and
applies one mutation class: token, line or byte mutations, deep nesting, huge numbers,
truncation, or a mutation of one of its include files. The program is compiled in-process
through the CLI's ``main``; a clean exit (0 or 2) is fine, an escaped exception is a
traceback, a case running past ``--limit`` seconds a hang.

Usage: ``python benchmarks/fuzz_p4c.py [--cases 1850] [--seed 1]``. Exit 1 if any
traceback or hang.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from fuzzlib import LAST_OUTPUT, flip_bytes, mutate_lines, report, run_cli

ROOT = Path(__file__).resolve().parent.parent
P4 = ROOT / "p4"
CLASSES = ("token", "line", "byte", "nesting", "number", "truncate", "include")
_TOKEN = re.compile(r"\w+|[^\w\s]|\s+")
_POSITIONED = re.compile(r"^fabemu p4c: \S+:[1-9]\d*:[1-9]\d*: error: ", re.M)
_INT = re.compile(r"\b\d+\b")
VOCAB = [
    "(", ")", "{", "}", "[", "]", "<", ">", ";", ",", ".", "=", "==", "+", "-", "*", "/", "!",
    "~", "&", "|", "^", "<<", ">>", "?", ":", "@", "#", "bit", "int", "if", "else", "apply", "table", "action", "const", "struct", "header",
    "control", "parser", "state", "transition", "select", "default", "true", "switch",
    "8w255", "0x", "\"s\"", "_", "#include", "#define", "#if",
]  # fmt: skip
HUGE = (
    "9" * 40, "0x" + "f" * 120, "8w" + "9" * 30, "9" * 30 + "w1", "1" * 5000,
    "65536w1", "3s" + "7" * 25, "0b" + "1" * 300, "99999999999999999999999999",
)  # fmt: skip


def _tokens(text: str, rng: random.Random) -> str:
    toks = _TOKEN.findall(text)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(toks))
        op = rng.choice(("delete", "duplicate", "swap", "replace"))
        if op == "delete":
            del toks[i]
        elif op == "duplicate":
            toks.insert(i, toks[i])
        elif op == "swap" and i + 1 < len(toks):
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        else:
            toks[i] = rng.choice(VOCAB)
    return "".join(toks)


def _nesting(text: str, rng: random.Random) -> str:
    d = rng.choice((50, 200, 1000, 5000, 50000))
    stmt = rng.choice(
        (
            "bit<8> fz = " + "(" * d + "8w1" + ")" * d + ";",
            "bit<8> fz = " + "-" * d + "8w1;",
            "bit<8> fz = " + "8w1 + " * d + "8w1;",
            "bit<8> fz = " + "(bit<8>)" * d + "8w1;",
            "{" * d + "}" * d,
            "if (true) " * d + ";",
            "bool fz = " + "!" * d + "true;",
            "bit<8> fz = {" * d + "8w1" + "}" * d + ";",
        )
    )
    spots = [m.end() for m in re.finditer(r"apply\s*\{", text)] or [len(text)]
    at = rng.choice(spots)
    return text[:at] + "\n" + stmt + "\n" + text[at:]


def _number(text: str, rng: random.Random) -> str:
    if rng.random() < 0.3:
        width = rng.choice(("9" * 40, "4294967296", "65536"))
        return re.sub(r"bit<\d+>", f"bit<{width}>", text, count=1)
    spots = list(_INT.finditer(text))
    m = rng.choice(spots)
    return text[: m.start()] + rng.choice(HUGE) + text[m.end() :]


def mutate(data: bytes, cls: str, rng: random.Random) -> bytes:
    """Apply one mutation of class ``cls`` (not ``include``) to a program's bytes."""
    if cls == "byte":
        return flip_bytes(data, rng, rng.randint(1, 4))
    if cls == "truncate":
        return data[: rng.randrange(len(data))]
    text = data.decode()
    out = {"token": _tokens, "line": lambda t, r: mutate_lines(t, r), "nesting": _nesting,
           "number": _number}[cls](text, rng)  # fmt: skip
    return out.encode()


def _bases(work: Path) -> list[tuple[Path, list[Path]]]:
    """Copies of the shipped programs in ``work``: (program, its local include files)."""
    shutil.copytree(P4, work / "p4")
    roce = work / "p4/roce_fabric.p4"
    corpus = sorted((work / "p4/corpus").glob("*.p4"))
    out = [(roce, sorted((work / "p4/include").glob("*.p4")))]
    out += [(p, sorted((work / "p4/corpus/include").glob("*.p4"))) for p in corpus]
    return out


#: an example message per mutation class that gave a diagnostic without a position
UNPOSITIONED: dict[str, str] = {}


def run_case(base: Path, includes: list[Path], cls: str, rng: random.Random, limit: int) -> str:
    """Write one mutant next to ``base`` (so its includes resolve), compile it, classify."""
    target, mutant_cls = base, cls
    if cls == "include":
        target = rng.choice(includes)
        mutant_cls = rng.choice(("token", "line", "byte", "truncate", "number"))
    original = target.read_bytes()
    try:
        target.write_bytes(mutate(original, mutant_cls, rng))
        outcome = run_cli(["p4c", str(base), "-o", str(base.with_suffix(".out.json"))], limit)
    finally:
        target.write_bytes(original)
    if outcome == "exit 2" and not _POSITIONED.search(LAST_OUTPUT[0]):
        UNPOSITIONED.setdefault(cls, LAST_OUTPUT[0][:300])
        return "exit 2 without file:line:col"
    return outcome


def main(argv: list[str] | None = None) -> int:
    """Run the cases and print outcome counts per mutation class."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=1850)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=30, help="seconds per case before a hang")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    by_class: dict[str, Counter[str]] = defaultdict(Counter)
    with tempfile.TemporaryDirectory(prefix="fuzz-p4c-") as tmp:
        bases = _bases(Path(tmp))
        for i in range(args.cases):
            cls = CLASSES[i % len(CLASSES)]
            base, includes = rng.choice(bases)
            outcome = run_case(base, includes, cls, rng, args.limit)
            counts[outcome] += 1
            by_class[cls][outcome] += 1
    failures = report("fuzz_p4c", counts, by_class)
    for cls, text in UNPOSITIONED.items():
        print(f"--- {cls} diagnostic without a position:\n{text}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
