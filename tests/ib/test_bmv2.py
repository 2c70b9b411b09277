"""p4/ib_fabric.p4 on the real BMv2: the same frames leave the same ports as on our target."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from emulator.ib.commands import IbSwitchConfig, switch_commands
from emulator.p4c import compile_file
from tests.ib.test_p4_switch import PROGRAM, _fabric, _frame
from tests.target.test_bmv2_differential import compare

pytestmark = [pytest.mark.bmv2, pytest.mark.ib]


@pytest.mark.parametrize("compiler", ["p4c-bm2-ss", "fabemu"])
def test_static_lft_forwarding_matches_bmv2(tmp_path: Path, compiler: str) -> None:
    json_path = tmp_path / "ib_fabric.json"
    if compiler == "fabemu":
        json_path.write_text(json.dumps(compile_file(PROGRAM)))
    else:
        subprocess.run([compiler, "-o", str(json_path), str(PROGRAM)], check=True, timeout=300,
                       capture_output=True, cwd=tmp_path)  # fmt: skip
    topo, routing = _fabric()
    commands = switch_commands(topo, routing, IbSwitchConfig(data_vls=2))["rtsw0"]
    inputs = [(1, _frame("h0", h.name, dscp=8 * (i % 4))) for i, h in enumerate(topo.hosts[1:])]
    inputs.append((2, _frame("h1", "h4", vl15=True)))  # management: dropped by both
    compare(json_path, commands, inputs, list(range(1, 9)), [], tmp_path)
