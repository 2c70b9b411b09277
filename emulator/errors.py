"""Errors that are the user's fault: the CLI prints them without a traceback and exits 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user (program, scenario, topology, command); message is user-facing."""

    exit_code = 2
