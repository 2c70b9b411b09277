"""Shared pieces of the fuzz scripts: run a ``fabemu`` command in-process and classify it.

An outcome is ``exit N`` (a clean exit, whatever N), ``hang`` (the per-case wall-clock
limit fired) or the name of the exception type that escaped ``main`` (a traceback).
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
import traceback
from collections import Counter
from collections.abc import Sequence
from types import FrameType

from emulator.cli.main import main

#: first traceback text seen per exception type (printed by ``report``)
FIRST_TRACEBACK: dict[str, str] = {}


#: the output of the last ``run_cli`` case
LAST_OUTPUT = [""]


class _Hang(BaseException):
    """Raised by SIGALRM inside a case that ran past its limit."""


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise _Hang


def run_cli(argv: Sequence[str], limit_s: int = 30) -> str:
    """Run ``fabemu ARGV`` in this process and classify how it ended.

    The output (stdout and stderr together) is kept in ``LAST_OUTPUT[0]``.
    """
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit_s)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = main(list(argv))
        return f"exit {code}"
    except SystemExit as exc:
        return f"exit {exc.code if isinstance(exc.code, int) else 1}"
    except _Hang:
        return "hang"
    except Exception as exc:  # the thing being counted: an escaped traceback
        FIRST_TRACEBACK.setdefault(type(exc).__name__, traceback.format_exc(limit=-4))
        return type(exc).__name__
    finally:
        LAST_OUTPUT[0] = sink.getvalue()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def is_failure(outcome: str) -> bool:
    """A traceback, a hang, or a clean exit flagged by the script (``exit N without ...``)."""
    return not outcome.startswith("exit ") or " without " in outcome


def flip_bytes(data: bytes, rng: random.Random, k: int = 3) -> bytes:
    """Overwrite, insert or delete ``k`` random bytes (often making the text non-UTF-8)."""
    buf = bytearray(data)
    for _ in range(k):
        if not buf:
            break
        i = rng.randrange(len(buf))
        op = rng.choice(("set", "insert", "delete"))
        if op == "set":
            buf[i] = rng.randrange(256)
        elif op == "insert":
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        else:
            del buf[i]
    return bytes(buf)


def mutate_lines(text: str, rng: random.Random) -> str:
    """Delete, duplicate or swap a random line."""
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.choice(("delete", "duplicate", "swap"))
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def report(title: str, counts: Counter[str], by_class: dict[str, Counter[str]]) -> int:
    """Print outcome counts (total and per mutation class); return the number of failures."""
    failures = sum(n for k, n in counts.items() if is_failure(k))
    total = sum(counts.values())
    print(f"{title}: {total} cases, {failures} tracebacks/hangs")
    for outcome, n in sorted(counts.items()):
        print(f"  {outcome:<24} {n}")
    for cls, c in sorted(by_class.items()):
        bad = {k: n for k, n in c.items() if is_failure(k)}
        print(f"  class {cls:<12} {sum(c.values()):>6} cases, failures {bad or 0}")
    for name, text in FIRST_TRACEBACK.items():
        print(f"--- first {name}:\n{text}")
    return failures
