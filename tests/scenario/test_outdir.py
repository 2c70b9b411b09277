"""New results folders never land in an earlier one."""

from __future__ import annotations

import datetime as real_dt
from pathlib import Path
from types import SimpleNamespace

import pytest

from emulator.scenario import outdir as od


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call in the same second."""
    at = real_dt.datetime(2026, 11, 28, 23, 59, 1)
    clock = SimpleNamespace(datetime=SimpleNamespace(now=lambda: at))
    monkeypatch.setattr(od, "dt", clock)


def test_the_same_second_gets_a_new_folder_each_time(frozen: None, tmp_path: Path) -> None:
    made = [od.new_outdir(None, "compare-x", root=tmp_path) for _ in range(3)]
    names = [p.name for p in made]
    assert names == ["20261128-235901-compare-x", "20261128-235901-compare-x-2",
                     "20261128-235901-compare-x-3"]  # fmt: skip
    assert all(p.is_dir() and not any(p.iterdir()) for p in made)


def test_a_given_folder_is_used_as_it_is(tmp_path: Path) -> None:
    given = tmp_path / "a" / "b"
    assert od.new_outdir(given, "ignored") == given and given.is_dir()
    (given / "keep").write_text("x")
    assert od.new_outdir(str(given), "ignored") == given and (given / "keep").exists()


def test_compare_writes_to_a_fresh_folder(
    frozen: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fabemu compare`` without --out: an earlier compare's folder of that second stays."""
    from emulator.cli.main import main

    monkeypatch.chdir(tmp_path)
    earlier = tmp_path / "results" / "20261128-235901-compare-fat_flow_collision"
    earlier.mkdir(parents=True)
    sc = Path(__file__).resolve().parents[2] / "scenarios" / "fat_flow_collision.yaml"
    args = ["compare", str(sc), "--vary", "lb=ecmp", "--set", "duration_ms=50", "--workers", "1"]
    main(args)
    assert not any(earlier.iterdir())
    assert (earlier.parent / f"{earlier.name}-2" / "report.html").exists()
