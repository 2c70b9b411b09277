"""Errors of the built-in switch target (all user-facing: bad programs, bad commands)."""

from __future__ import annotations

from emulator.errors import UserError


class ProgramError(UserError):
    """A BMv2 JSON program the target cannot load (malformed or unsupported construct)."""


class CliError(UserError):
    """A runtime CLI command that cannot be executed (unknown name, bad value, arity...)."""


class StfError(UserError):
    """A malformed STF test file (reported with file:line)."""
