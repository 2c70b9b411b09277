"""``fabemu topo list|show`` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from emulator.cli.main import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", "list"]) == 0
    out = capsys.readouterr().out
    assert "two_rack_2spine" in out and "scale: 24576 GPUs in 8 zones" in out


def test_show_yaml_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["topo", "show", "two_rack_4spine"]) == 0
    data = yaml.safe_load(capsys.readouterr().out)
    assert len(data["hosts"]) == 8 and len(data["switches"]) == 6
    out = tmp_path / "t.json"
    assert main(["topo", "show", "two_rack_4spine", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["links"][-1]["b"] == "ctsw3"


def test_show_scale_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", "show", "meta_24k", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["switches"]["ctsw"] == 128


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_show_picture(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"t.{fmt}"
    assert main(["topo", "show", "two_zone_atsw", "-o", str(out)]) == 0
    head = out.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if fmt == "png" else b"<svg" in out.read_bytes()


def test_user_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["topo", "show", "no_such_topology"]) == 2
    assert "no such topology file" in capsys.readouterr().err
    assert main(["topo", "show", "two_rack_2spine", "--format", "png"]) == 2
    assert "needs -o OUT" in capsys.readouterr().err
    assert main(["topo", "show", "meta_24k", "-o", str(tmp_path / "x.png")]) == 2
    assert "cannot be drawn" in capsys.readouterr().err
    assert main(["topo"]) == 2
