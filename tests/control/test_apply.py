"""apply_commands against fake command sinks: handles verified, failures reported."""

from __future__ import annotations

import pytest

from emulator.control import CommandFailed, FabricController, apply_commands
from emulator.control.render import command_lines
from emulator.errors import UserError
from emulator.topology import load_clos, resolve


class FakeSwitch:
    """Answers like simple_switch_CLI, numbering members and groups from ``start``."""

    def __init__(self, start: int = 0, fail_on: str | None = None) -> None:
        self.lines: list[str] = []
        self.members = self.groups = start
        self.fail_on = fail_on

    def cli(self, line: str) -> str:
        self.lines.append(line)
        if self.fail_on and line.startswith(self.fail_on):
            return "Invalid table operation (DUPLICATE_ENTRY)"
        if line.startswith("act_prof_create_member"):
            self.members += 1
            return f"Member has been created with handle {self.members - 1}"
        if line.startswith("act_prof_create_group"):
            self.groups += 1
            return f"Group has been created with handle {self.groups - 1}"
        return ""


class RaisingSwitch:
    def cli(self, line: str) -> str:
        raise UserError("invalid table name 'X'")


@pytest.fixture(scope="module")
def ctl() -> FabricController:
    return FabricController(resolve(load_clos("two_rack_2spine")))


def test_apply_sends_every_command_of_the_file(ctl) -> None:
    sw = FakeSwitch()
    ctl.apply({"rtsw0": sw})
    assert sw.lines == command_lines(ctl.command_file("rtsw0"))
    assert sw.members == 5 and sw.groups == 3


def test_a_switch_that_was_not_fresh_is_detected(ctl) -> None:
    with pytest.raises(CommandFailed, match="assigned member handle 3, the plan expected 0"):
        ctl.apply({"rtsw0": FakeSwitch(start=3)})


def test_rejected_command_names_the_command(ctl) -> None:
    with pytest.raises(CommandFailed, match=r"rtsw0: command \d+ `table_add RoceEgress.port_mac"):
        ctl.apply({"rtsw0": FakeSwitch(fail_on="table_add RoceEgress.port_mac")})
    with pytest.raises(CommandFailed, match="`x 1` failed: invalid table name"):
        apply_commands(RaisingSwitch(), ["x 1"])


def test_repair_diff_is_applied_to_the_switches_with_a_sink() -> None:
    ctl = FabricController(resolve(load_clos("two_rack_2spine")))
    diffs = ctl.fail_link("rtsw1", "ctsw0")
    sw = FakeSwitch()
    ctl.apply_diff(diffs, {"rtsw1": sw})
    assert sw.lines == command_lines(diffs["rtsw1"])
