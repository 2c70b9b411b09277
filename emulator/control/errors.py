"""Control-plane errors: bad configuration or a command the switch refused."""

from __future__ import annotations

from emulator.errors import UserError


class ControlError(UserError):
    """Invalid control-plane input (configuration, topology request, link name)."""


class CommandFailed(ControlError):
    """The switch rejected a runtime command; the message holds the command and its reply."""
