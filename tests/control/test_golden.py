"""Rendered command files against golden files (regenerate with --update-golden)."""

from __future__ import annotations

import pytest

from emulator.control import FabricConfig, FabricController, PfcConfig
from emulator.control.render import command_lines
from emulator.topology import load_clos, resolve


@pytest.mark.parametrize("name", ["two_rack_2spine", "two_rack_4spine"])
def test_command_files_match_golden(name: str, golden) -> None:
    ctl = FabricController(resolve(load_clos(name)))
    for switch in ctl.switch_names:
        golden(f"{name}/{switch}.cli", ctl.command_file(switch))


def test_repair_commands_match_golden(golden) -> None:
    ctl = FabricController(resolve(load_clos("two_rack_4spine")))
    diffs = ctl.fail_link("rtsw0", "ctsw2")
    text = "".join(diffs[s] for s in ctl.switch_names if s in diffs)
    golden("two_rack_4spine/repair_rtsw0_ctsw2.cli", text)


def test_options_change_the_rendered_sections() -> None:
    cfg = FabricConfig(
        lb_mode="pinning",
        hash_algos={"leaf": "crc32"},
        pfc=PfcConfig(enabled=False),
        ecn_thresholds=((3, 20),),
        queue_depth=128,
    )
    lines = command_lines(
        FabricController(resolve(load_clos("two_rack_2spine")), cfg).command_file("rtsw0")
    )
    assert (
        lines[0]
        == "table_set_default RoceIngress.switch_config RoceIngress.set_switch_config 0 2 1 100"
    )
    assert "set_queue_depth 128" in lines
    assert not [ln for ln in lines if ln.startswith("mirroring_add")]
    assert "table_add RoceEgress.ecn_config RoceEgress.set_ecn_threshold 4 3 => 20" in lines
    assert all(not ln.startswith("#") for ln in lines)
