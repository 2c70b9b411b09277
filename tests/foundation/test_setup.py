"""The project's own setup, CI entry point, Vagrantfile and README stay consistent."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(args, capture_output=True, text=True, env=full_env, timeout=120)


def test_setup_rejects_unsupported_os(tmp_path: Path) -> None:
    osr = tmp_path / "os-release"
    osr.write_text('ID=fedora\nVERSION_ID=40\nPRETTY_NAME="Fedora Linux 40"\n')
    res = _run(["bash", str(SETUP)], env={"FABEMU_OS_RELEASE": str(osr)})
    assert res.returncode == 1
    assert "unsupported OS 'Fedora Linux 40'" in res.stderr
    assert "Debian 12 and Ubuntu 24.04" in res.stderr


def test_setup_rejects_unknown_option() -> None:
    res = _run(["bash", str(SETUP), "--frobnicate"])
    assert res.returncode == 2
    assert "unknown option '--frobnicate'" in res.stderr


@pytest.mark.skipif(not Path("/etc/os-release").exists(), reason="no /etc/os-release")
def test_setup_check_reports_complete_install() -> None:
    """After setup ran (the test command runs it first), --check finds nothing missing."""
    res = _run(["bash", str(SETUP), "--check"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all present" in res.stdout
    assert "compiled data path: " in res.stdout  # emulator/native's state, reported


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start\n.*?```(?:bash|sh)?\n(.*?)```", readme, re.S)
    assert block, "README has a Quick start code block"
    commands = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(commands) == 2, commands
    test_cmd = next(c for c in commands if "test" in c)
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd.strip() in ci
    assert "-eq 5" in ci  # pytest's "no tests collected"


def test_vagrantfile_static() -> None:
    text = (ROOT / "Vagrantfile").read_text()
    assert 'config.vm.box = "bento/ubuntu-24.04"' in text
    assert 'config.vm.synced_folder ".", "/vagrant"' in text
    cpus = int(re.search(r'FABEMU_VM_CPUS", "(\d+)"', text).group(1))
    mem = int(re.search(r'FABEMU_VM_MEMORY_MB", "(\d+)"', text).group(1))
    assert cpus >= 2 and mem >= 4096
    assert "/vagrant/scripts/setup.sh --with-bmv2" in text


@pytest.mark.skipif(
    not shutil.which("vagrant"), reason="vagrant not installed (Debian package 'vagrant')"
)
def test_vagrant_validate() -> None:
    res = subprocess.run(
        ["vagrant", "validate", "--ignore-provider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "validated successfully" in res.stdout


def test_cli_entry_points() -> None:
    res = _run([sys.executable, "-m", "emulator", "--version"])
    assert res.returncode == 0 and res.stdout.startswith("fabemu ")
    res = _run([sys.executable, "-m", "emulator", "--help"])
    assert res.returncode == 0 and "COMMAND" in res.stdout


def test_package_is_typed() -> None:
    assert (ROOT / "emulator" / "py.typed").exists()


@pytest.mark.skipif(
    not shutil.which("ruff", path=str(Path(sys.executable).parent)) and not shutil.which("ruff"),
    reason="ruff not installed (pip install -e .[dev])",
)
def test_ruff_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    for args in (["check", "."], ["format", "--check", "."]):
        res = subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stdout[-4000:]


def test_mypy_clean() -> None:
    """The configured type checker ([tool.mypy] in pyproject.toml) passes on the package."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if not mypy:
        pytest.skip("mypy not installed (pip install -e .[dev])")
    res = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-4000:]
