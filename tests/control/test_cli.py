"""``fabemu control`` module: files written, bad --fail rejected."""

from __future__ import annotations

import argparse

import pytest

from emulator.control import ControlError, cli


def _args(tmp_path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(["two_rack_2spine", "--out", str(tmp_path), *extra])


def test_writes_one_file_per_switch_and_repairs(tmp_path, capsys) -> None:
    assert cli.run(_args(tmp_path, "--hash", "crc32", "--fail", "rtsw0:ctsw1")) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[:4] == [
        "ctsw0.cli",
        "ctsw1.cli",
        "repair_rtsw0_ctsw1_ctsw1.cli",
        "repair_rtsw0_ctsw1_rtsw0.cli",
    ]
    assert " 0 1 1 100" in (tmp_path / "rtsw0.cli").read_text()  # leaf, eecmp, crc32
    assert "rtsw1.cli" in capsys.readouterr().out


def test_bad_fail_spec_is_a_user_error(tmp_path) -> None:
    with pytest.raises(ControlError, match="expected A:B"):
        cli.run(_args(tmp_path, "--fail", "rtsw0"))
