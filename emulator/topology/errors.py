"""Topology errors: a bad topology spec or file is the user's mistake."""

from __future__ import annotations

from emulator.errors import UserError


class TopologyError(UserError):
    """An invalid topology spec, file or request; the message names the file/key at fault."""
