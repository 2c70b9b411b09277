"""``fabemu run`` starts without the libraries it only needs later or never (start-up cost)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(code: str, **env_vars: str) -> set[str]:
    """The top-level modules a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_vars}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_run_command_module_imports_no_plotting_or_graph_library() -> None:
    """matplotlib (report), networkx (IB only), scipy (sweeps) wait until they are used."""
    loaded = _modules_after("import emulator.cli.cmd_run")
    assert "emulator" in loaded
    assert not loaded & {"matplotlib", "networkx", "scipy", "numpy", "pyroute2"}


def test_roce_run_without_report_never_imports_networkx(tmp_path: Path) -> None:
    """A RoCE run (the flagship scenario) computes its routes without networkx."""
    scenario = ROOT / "scenarios" / "fat_flow_collision.yaml"
    loaded = _modules_after(
        "from emulator.scenario.runner import run_scenario\n"
        f"run_scenario({str(scenario)!r}, {{}}, out={str(tmp_path / 'out')!r}, report=False)",
        FABEMU_CACHE_DIR=str(tmp_path / "cache"),
        FABEMU_STATE_DIR=str(tmp_path / "state"),
    )
    assert (tmp_path / "out" / "result.json").exists()
    assert "networkx" not in loaded and "matplotlib" not in loaded


def test_run_no_report_writes_results_without_plotting(tmp_path: Path) -> None:
    """``fabemu run --no-report``: result.json and metrics.json, no report, no matplotlib."""
    scenario = ROOT / "scenarios" / "fat_flow_collision.yaml"
    out = tmp_path / "out"
    argv = ["run", str(scenario), "--out", str(out), "--no-report", "--set", "duration_ms=2"]
    loaded = _modules_after(
        f"from emulator.cli.main import main\nmain({argv!r})",
        FABEMU_CACHE_DIR=str(tmp_path / "cache"),
        FABEMU_STATE_DIR=str(tmp_path / "state"),
    )
    assert (out / "result.json").exists() and (out / "metrics.json").exists()
    assert not (out / "report.html").exists() and not list(out.glob("*.png"))
    assert not loaded & {"matplotlib", "jinja2", "numpy", "PIL"}


def test_run_no_report_with_seeds_is_a_user_error(tmp_path: Path) -> None:
    from emulator.cli.main import main

    scenario = ROOT / "scenarios" / "fat_flow_collision.yaml"
    argv = ["run", str(scenario), "--seeds", "2", "--no-report", "--out", str(tmp_path)]
    assert main(argv) == 2
