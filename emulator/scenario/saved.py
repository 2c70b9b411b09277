"""A run read back from its results directory: the result, its metrics and its verdicts.

What ``fabemu run`` wrote is enough to draw its report again later (``fabemu report``):
``result.json`` holds the run and, in ``meta.settings``, the scenario it ran, whose
``expect:`` bounds are judged again on the metrics computed from the result::

    DIR/result.json ─RunResult.load─► result ─summary_metrics─► metrics
                    meta.settings.expect ─Bound─► evaluate(expect, metrics) ─► verdicts
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from emulator.errors import UserError
from emulator.measure.results import RunResult
from emulator.scenario.expect import Verdict, evaluate
from emulator.scenario.load import format_validation_error
from emulator.scenario.metrics import summary_metrics
from emulator.scenario.schema import Bound

RESULT = "result.json"


@dataclass(frozen=True)
class SavedRun:
    """One results directory, read back."""

    outdir: Path
    result: RunResult
    metrics: dict[str, float]
    verdicts: list[Verdict]

    @property
    def name(self) -> str:
        """The scenario's name, as ``fabemu run`` titled the run's report."""
        return self.result.meta.scenario or self.outdir.name


def load_saved(outdir: Path) -> SavedRun:
    """Read the run saved in ``outdir``; a :class:`UserError` naming the file if it cannot."""
    outdir = Path(outdir)
    if not outdir.is_dir():
        raise UserError(f"{outdir}: no such results directory")
    path = outdir / RESULT
    if not path.is_file():
        raise UserError(f"{path}: missing; {_hint(outdir)}")
    try:
        result = RunResult.load(path)
    except ValidationError as exc:
        detail = format_validation_error(path, exc)
        raise UserError(f"{path}: not a fabemu result\n{detail}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: {exc}") from None
    metrics = summary_metrics(result)
    return SavedRun(outdir, result, metrics, evaluate(_expect(path, result), metrics))


def _expect(path: Path, result: RunResult) -> dict[str, Bound]:
    """The scenario's ``expect:`` bounds as saved in ``meta.settings``."""
    raw = (result.meta.settings or {}).get("expect") or {}
    if not isinstance(raw, dict):
        raise UserError(f"{path}: meta.settings.expect: a mapping of metric -> bound expected")
    out = {}
    for name, bound in raw.items():
        try:
            out[str(name)] = Bound.model_validate(bound)
        except ValidationError as exc:
            msg = exc.errors()[0].get("msg")
            raise UserError(f"{path}: meta.settings.expect.{name}: {msg}") from None
    return out


def _hint(outdir: Path) -> str:
    """What to give instead of a folder without ``result.json``: a ``compare``'s keeps its
    runs one level down (``VARIANT/``), a sweep over seeds two (``VARIANT/seed-N/``)."""
    runs = sorted(p.parent for pattern in ("*", "*/*") for p in outdir.glob(f"{pattern}/{RESULT}"))
    if not runs:
        return "not a fabemu results directory (fabemu run writes one per run)"
    shown = ", ".join(str(p) for p in runs[:3]) + (", ..." if len(runs) > 3 else "")
    return f"a folder of {len(runs)} runs: give the runs' own directories ({shown})"
