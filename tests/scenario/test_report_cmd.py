"""``fabemu report``: a report drawn later from saved results equals the one the run draws."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from emulator.cli.main import main
from emulator.scenario.saved import load_saved

ROOT = Path(__file__).resolve().parents[2]
FLAGSHIP = ROOT / "scenarios" / "fat_flow_collision.yaml"
REPORT_FILES = ("report.html", "*.png")


def _run(out: Path, *extra: str) -> int:
    return main(["run", str(FLAGSHIP), "--out", str(out), *extra])


def _report_files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pat in REPORT_FILES for p in sorted(d.glob(pat))}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The flagship run once with its report (the first variant, ECMP with 1 QP)."""
    out = tmp_path_factory.mktemp("drawn") / "run"
    assert _run(out) in (0, 1)
    return out


def test_a_redrawn_report_is_the_runs_own(drawn: Path, tmp_path: Path) -> None:
    before = _report_files(drawn)
    assert "report.html" in before and len(before) >= 5
    copy = tmp_path / "copy"
    shutil.copytree(drawn, copy)
    for name in before:
        (copy / name).unlink()
    assert main(["report", str(copy)]) == 0
    assert _report_files(copy) == before  # byte for byte: HTML, every PNG


def test_a_run_without_report_gets_the_same_one_later(drawn: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    assert _run(bare, "--no-report") in (0, 1)
    assert not (bare / "report.html").exists()
    assert main(["report", str(bare)]) == 0
    assert _report_files(bare) == _report_files(drawn)  # virtual time: the same run


def test_verdicts_are_judged_again_from_the_saved_scenario(drawn: Path) -> None:
    saved = load_saved(drawn)
    expect = saved.result.meta.settings["expect"]
    assert expect and {v.metric for v in saved.verdicts} == set(expect)
    metrics = json.loads((drawn / "metrics.json").read_text())
    for v in saved.verdicts:
        assert v.value == metrics.get(v.metric)


def test_several_runs_side_by_side(drawn: Path, tmp_path: Path) -> None:
    other = tmp_path / "a" / "run"  # the same folder name as ``drawn``: labels need parents
    assert _run(other, "--set", "switch.lb=eecmp", "--set", "workload.num_qps=16") in (0, 1)
    out = tmp_path / "both"
    assert main(["report", str(drawn), str(other), "--out", str(out)]) == 0
    html = (out / "report.html").read_text()
    labels = [f"{drawn.parent.name}/run", "a/run"]
    assert all(label in html for label in labels)
    assert (out / "summary.png").exists()  # the comparison's own plot
    assert len(list(out.glob("uplink_heatmap-*.png"))) == 2  # one per run


def test_several_runs_default_to_a_new_results_folder(
    drawn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    second = tmp_path / "second"
    shutil.copytree(drawn, second)
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(drawn), str(second)]) == 0
    (made,) = (tmp_path / "results").glob("*-report")
    assert (made / "report.html").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "no such results directory"),
        ("empty", "result.json: missing; not a fabemu results directory"),
        ("compare", "a folder of 2 runs: give the runs' own directories"),
        ("sweep", "a folder of 3 runs: give the runs' own directories"),
        ("garbage", "result.json: not a fabemu result"),
        ("bad_expect", "result.json: meta.settings.expect.max_uplink_imbalance:"),
        ("twice", "a results directory is given twice"),
    ],
)
def test_bad_folders_are_user_errors(
    drawn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str, message: str
) -> None:
    target = tmp_path / "x"
    args = [str(target)]
    if setup == "empty":
        target.mkdir()
    elif setup == "compare":  # fabemu compare: VARIANT/
        for name in ("lb-ecmp", "lb-eecmp"):
            shutil.copytree(drawn, target / name)
    elif setup == "sweep":  # fabemu compare --seeds: VARIANT/seed-N/
        for name in ("lb-ecmp/seed-1", "lb-ecmp/seed-2", "lb-eecmp/seed-1"):
            shutil.copytree(drawn, target / name)
    elif setup == "garbage":
        target.mkdir()
        (target / "result.json").write_text('{"meta": 3}')
    elif setup == "bad_expect":
        shutil.copytree(drawn, target)
        (target / "report.html").unlink()
        data = json.loads((target / "result.json").read_text())
        data["meta"]["settings"]["expect"] = {"max_uplink_imbalance": {"min": 2, "max": 1}}
        (target / "result.json").write_text(json.dumps(data))
    elif setup == "twice":
        args = [str(drawn), str(drawn / ".." / drawn.name)]
    assert main(["report", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (target / "report.html").exists()


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep over seeds of the flagship, 2 variants x 2 seeds, with its report."""
    out = tmp_path_factory.mktemp("sweep") / "s"
    argv = ["compare", str(FLAGSHIP), "--vary", "lb=ecmp,eecmp", "--seeds", "2"]
    assert main([*argv, "--workers", "1", "--out", str(out)]) in (0, 1)
    return out


def _sweep_files(d: Path) -> dict[str, bytes]:
    return {n: (d / n).read_bytes() for n in ("report.html", "distributions.png")}


def test_a_sweeps_report_redrawn_is_the_sweeps_own(
    sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _sweep_files(sweep)
    copy = tmp_path / "copy"
    shutil.copytree(sweep, copy)
    for name in before:
        (copy / name).unlink()
    capsys.readouterr()
    assert main(["report", str(copy)]) == 0
    assert "(4 runs, 2 variant(s)" in capsys.readouterr().out
    assert _sweep_files(copy) == before  # byte for byte: the table, the box plots
    html = before["report.html"].decode()
    assert "fat_flow_collision over seeds" in html and "lb=eecmp" in html
    elsewhere = tmp_path / "elsewhere"
    assert main(["report", str(sweep), "--out", str(elsewhere)]) == 0
    assert _sweep_files(elsewhere) == before


def test_a_sweeps_title_without_readable_runs_is_its_folders(sweep: Path, tmp_path: Path) -> None:
    copy = tmp_path / "my-sweep"
    shutil.copytree(sweep, copy, ignore=shutil.ignore_patterns("result.json"))
    assert main(["report", str(copy)]) == 0
    assert "my-sweep over seeds" in (copy / "report.html").read_text()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("with_a_run", "a sweep over seeds (runs.json) is reported on its own"),
        ("not_json", "runs.json: not a fabemu runs.json"),
        ("bad_metric", "runs.json: runs[0].metrics.collective_ms: Input should be a valid number"),
        ("no_summary", "summary: no entry for variant(s) lb=ecmp"),
        ("no_runs", "runs.json: no finished run to report"),
    ],
)
def test_bad_sweep_folders_are_user_errors(
    sweep: Path,
    drawn: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: str,
    message: str,
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(sweep, copy)
    (copy / "report.html").unlink()
    args = [str(copy)]
    doc = json.loads((copy / "runs.json").read_text())
    if damage == "with_a_run":
        args.append(str(drawn))
    elif damage == "not_json":
        (copy / "runs.json").write_text("{")
    elif damage == "bad_metric":
        doc["runs"][0]["metrics"]["collective_ms"] = "fast"
    elif damage == "no_summary":
        del doc["summary"]["lb=ecmp"]
    elif damage == "no_runs":
        doc["runs"] = []
    if damage in ("bad_metric", "no_summary", "no_runs"):
        (copy / "runs.json").write_text(json.dumps(doc))
    assert main(["report", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert not (copy / "report.html").exists()
