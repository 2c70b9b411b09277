"""Apply command files to a switch through anything that answers simple_switch_CLI lines."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from emulator.control.errors import CommandFailed
from emulator.errors import UserError

_CREATED = re.compile(r"(Member|Group) has been created with handle (\d+)")
_ERROR = re.compile(r"^\s*(Error|Invalid|\*\*\* Unknown|Unknown)", re.MULTILINE | re.IGNORECASE)


@runtime_checkable
class CommandSink(Protocol):
    """A switch control channel: the built-in ``Switch``, a control-socket client, ..."""

    def cli(self, line: str) -> str:
        """Run one simple_switch_CLI command and return its output."""
        ...


def apply_commands(
    sink: CommandSink,
    lines: Iterable[str],
    *,
    next_member: int | None = None,
    next_group: int | None = None,
    where: str = "switch",
) -> list[str]:
    """Run ``lines`` in order; raise CommandFailed at the first rejected command.

    When ``next_member`` / ``next_group`` are given, the handles the switch reports for
    created members / groups must count up from them (the plan's prediction).
    """
    expect = {"Member": next_member, "Group": next_group}
    replies: list[str] = []
    for number, line in enumerate(lines, 1):
        try:
            reply = sink.cli(line)
        except UserError as exc:
            raise CommandFailed(f"{where}: command {number} `{line}` failed: {exc}") from None
        reply = reply or ""
        if _ERROR.search(reply):
            raise CommandFailed(f"{where}: command {number} `{line}` failed: {reply.strip()}")
        created = _CREATED.search(reply)
        if created and expect[created.group(1)] is not None:
            kind, got = created.group(1), int(created.group(2))
            if got != expect[kind]:
                raise CommandFailed(
                    f"{where}: command {number} `{line}`: the switch assigned {kind.lower()} "
                    f"handle {got}, the plan expected {expect[kind]} (was the switch fresh?)"
                )
            expect[kind] = got + 1
        replies.append(reply)
    return replies
