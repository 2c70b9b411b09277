"""Interpret simple_switch_CLI command text against a :class:`Switch`.

Names resolve like BMv2's CLI: the full JSON name, or a unique dotted suffix of it
(``routes`` for ``MyIngress.routes``). Every mistake raises :class:`CliError`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emulator.errors import read_text
from emulator.target.cli_values import (
    format_match,
    hex_bytes,
    parse_int,
    parse_match,
)
from emulator.target.errors import CliError
from emulator.target.runtime_cli_dump import DumpCommands
from emulator.target.runtime_cli_state import StateCommands, resolve
from emulator.target.tables import ActionProfile, ActionSpec, Entry, Group, Table

if TYPE_CHECKING:
    from emulator.target.switch import Switch


def _split_arrow(args: list[str]) -> tuple[list[str], list[str]]:
    if "=>" in args:
        i = args.index("=>")
        return args[:i], args[i + 1 :]
    return args, []


class RuntimeCli(DumpCommands, StateCommands):
    """The command interpreter; ``run(line)`` returns the text simple_switch_CLI would print."""

    def __init__(self, sw: Switch) -> None:
        self.sw = sw
        self.commands: dict[str, Callable[[list[str]], str]] = {
            name[4:]: getattr(self, name) for name in dir(self) if name.startswith("cmd_")
        }

    def run(self, line: str) -> str:
        """Execute one command line (blank lines and ``#`` comments give '')."""
        line = line.strip()
        if not line or line.startswith("#"):
            return ""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise CliError(f"cannot parse command {line!r}: {exc}") from None
        cmd, args = words[0], words[1:]
        handler = self.commands.get(cmd)
        if handler is None:
            raise CliError(f"unknown command '{cmd}'")
        return handler(args)

    def run_file(self, path: str | Path) -> list[str]:
        """Run every line of a command file; errors name the file and line."""
        lines = read_text(path, "command file", CliError).splitlines()
        out = []
        for n, line in enumerate(lines, 1):
            try:
                out.append(self.run(line))
            except CliError as exc:
                raise CliError(f"{path}:{n}: {exc}") from None
        return out

    # -- name and value helpers -------------------------------------------------------------

    def table(self, name: str) -> Table:
        """A table by (suffix) name."""
        return resolve(self.sw.tables, name, "table")

    def action(self, table: Table, name: str) -> ActionSpec:
        """An action of ``table`` by (suffix) name."""
        return resolve(table.actions, name, f"action for table {table.name}")

    def profile(self, name: str) -> ActionProfile:
        """An action profile by (suffix) name."""
        return resolve(self.sw.program.profiles, name, "action profile")

    def _data(self, action: ActionSpec, args: list[str]) -> tuple[int, ...]:
        if len(args) != len(action.params):
            raise CliError(
                f"action {action.name} takes {len(action.params)} parameter(s), got {len(args)}"
            )
        return tuple(
            parse_int(a, w, f"parameter {n} of {action.name}")
            for a, (n, w) in zip(args, action.params)
        )

    def _match(
        self, table: Table, keys: list[str], rest: list[str], nparams: int
    ) -> tuple[list[Any], list[str], int]:
        if len(keys) != len(table.keys):
            raise CliError(
                f"table {table.name} needs {len(table.keys)} match field(s), got {len(keys)}"
            )
        match = [parse_match(k, kf) for k, kf in zip(keys, table.keys)]
        priority = 0
        if table.needs_priority:
            if len(rest) != nparams + 1:
                raise CliError(
                    f"table {table.name} needs {nparams} action parameter(s) and a priority"
                )
            priority = self._int(rest[-1], "priority", 32)
            rest = rest[:-1]
        elif len(rest) != nparams:
            raise CliError(f"expected {nparams} action parameter(s) after '=>', got {len(rest)}")
        return match, rest, priority

    @staticmethod
    def _added(table: Table, name: str, match: list[Any], what: str, handle: int) -> str:
        """table_add's reply as simple_switch_CLI's: the table as the user named it and
        its BMv2 match type (range above ternary above lpm above exact)."""
        kinds = {k.match_type for k in table.keys}
        kind = next((k for k in ("range", "ternary", "lpm") if k in kinds), "exact")
        keys = "\t".join(format_match(m, k) for m, k in zip(match, table.keys))
        return (
            f"Adding entry to {kind} match table {name}\nmatch key:           {keys}\n"
            f"{what}\nEntry has been added with handle {handle}"
        )

    @staticmethod
    def _runtime_data(action: ActionSpec, data: tuple[int, ...]) -> str:
        return "\t".join(hex_bytes(v, w) for v, (_, w) in zip(data, action.params))

    # -- tables ----------------------------------------------------------------------------

    def cmd_table_add(self, args: list[str]) -> str:
        if len(args) < 2:
            raise CliError("usage: table_add <table> <action> <match fields> => <params> [prio]")
        table = self.table(args[0])
        if table.profile is not None:
            raise CliError(f"table {table.name} is indirect: use table_indirect_add")
        action = self.action(table, args[1])
        keys, rest = _split_arrow(args[2:])
        match, params, prio = self._match(table, keys, rest, len(action.params))
        data = self._data(action, params)
        handle = table.add(match, action, data, prio)
        rd = self._runtime_data(action, data)
        what = f"action:              {args[1]}\nruntime data:        {rd}"
        return self._added(table, args[0], match, what, handle)

    def cmd_table_set_default(self, args: list[str]) -> str:
        if len(args) < 2:
            raise CliError("usage: table_set_default <table> <action> <params>")
        table = self.table(args[0])
        if table.profile is not None:  # as simple_switch: WRONG_TABLE_TYPE
            raise CliError(f"table {table.name} is indirect: use table_indirect_set_default")
        action = self.action(table, args[1])
        params = [a for a in args[2:] if a != "=>"]
        if table.default_entry_const:
            raise CliError(
                f"table {table.name}: the default entry is const (DEFAULT_ENTRY_IS_CONST)"
            )
        if table.default_const and table.default and table.default.action is not action:
            raise CliError(f"table {table.name}: the default action is const")
        data = self._data(action, params)
        table.default = Entry(-1, (), 0, action, data)
        out = f"Setting default action of {args[0]}\naction:              {args[1]}"
        return out + (f"\nruntime data:        {self._runtime_data(action, data)}" if data else "")

    def cmd_table_reset_default(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_reset_default <table>")
        table = self.table(args[0])
        table.default = table.initial_default
        return ""

    def cmd_table_delete(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: table_delete <table> <handle>")
        table = self.table(args[0])
        table.delete(self._int(args[1], "entry handle"))
        return f"Deleting entry {args[1]} from {table.name}"

    def cmd_table_modify(self, args: list[str]) -> str:
        if len(args) < 3:
            raise CliError("usage: table_modify <table> <action> <handle> <params>")
        table = self.table(args[0])
        action = self.action(table, args[1])
        params = [a for a in args[3:] if a != "=>"]
        table.modify(self._int(args[2], "entry handle"), action, self._data(action, params))
        return f"Modifying entry {args[2]} for {table.name}"

    def cmd_table_clear(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_clear <table>")
        self.table(args[0]).clear()
        return ""

    def cmd_table_num_entries(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_num_entries <table>")
        return str(len(self.table(args[0]).entries))

    # -- action profiles / indirect tables -------------------------------------------------

    def profile_of(self, name: str) -> ActionProfile:
        """An action profile by (suffix) name, or the profile of the indirect table so named."""
        try:
            return self.profile(name)
        except CliError as exc:
            try:
                t = self.table(name)
            except CliError:
                raise exc from None
            if t.profile is None:
                raise CliError(f"table {t.name} is not indirect") from None
            return t.profile

    def profile_action(self, prof: ActionProfile, name: str) -> ActionSpec:
        """An action of the tables that use ``prof``, by (suffix) name."""
        acts = {
            a.name: a
            for t in self.sw.tables.values()
            if t.profile is prof
            for a in t.actions.values()
        }
        return resolve(acts, name, f"action for action profile {prof.name}")

    def cmd_act_prof_create_member(self, args: list[str]) -> str:
        if len(args) < 2:
            raise CliError("usage: act_prof_create_member <profile> <action> <params>")
        prof = self.profile_of(args[0])
        action = self.profile_action(prof, args[1])
        h = prof.create_member(action, self._data(action, [a for a in args[2:] if a != "=>"]))
        return f"Member has been created with handle {h}"

    cmd_table_indirect_create_member = cmd_act_prof_create_member

    def cmd_act_prof_create_group(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: act_prof_create_group <profile>")
        return f"Group has been created with handle {self.profile_of(args[0]).create_group()}"

    cmd_table_indirect_create_group = cmd_act_prof_create_group

    def _prof_pair(self, args: list[str], usage: str) -> tuple[ActionProfile, int, int]:
        if len(args) != 3:
            raise CliError(f"usage: {usage} <profile> <member handle> <group handle>")
        return (
            self.profile_of(args[0]),
            self._int(args[1], "member handle"),
            self._int(args[2], "group handle"),
        )

    def cmd_act_prof_add_member_to_group(self, args: list[str]) -> str:
        prof, m, g = self._prof_pair(args, "act_prof_add_member_to_group")
        prof.add_to_group(m, g)
        return ""

    cmd_table_indirect_add_member_to_group = cmd_act_prof_add_member_to_group

    def cmd_act_prof_remove_member_from_group(self, args: list[str]) -> str:
        prof, m, g = self._prof_pair(args, "act_prof_remove_member_from_group")
        prof.remove_from_group(m, g)
        return ""

    cmd_table_indirect_remove_member_from_group = cmd_act_prof_remove_member_from_group

    def cmd_act_prof_delete_member(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: act_prof_delete_member <profile> <member handle>")
        prof, h = self.profile_of(args[0]), self._int(args[1], "member handle")
        prof.delete_member(h, self._in_use(prof, lambda r: r is prof.members.get(h)))
        return ""

    def _in_use(self, prof: ActionProfile, refers: Callable[[Any], bool]) -> bool:
        """Whether an entry (or the default) of a table using ``prof`` refers to a member or
        group ``refers`` picks out."""
        tables = [t for t in self.sw.tables.values() if t.profile is prof]
        entries = [e for t in tables for e in (*t.entries.values(), t.default) if e is not None]
        return any(e.ref is not None and refers(e.ref) for e in entries)

    def cmd_act_prof_modify_member(self, args: list[str]) -> str:
        if len(args) < 3:
            raise CliError(
                "usage: act_prof_modify_member <profile> <action> <member handle> <params>"
            )
        prof = self.profile_of(args[0])
        action = self.profile_action(prof, args[1])
        data = self._data(action, [a for a in args[3:] if a != "=>"])
        prof.modify_member(self._int(args[2], "member handle"), action, data)
        return ""

    cmd_table_indirect_modify_member = cmd_act_prof_modify_member

    def cmd_act_prof_delete_group(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: act_prof_delete_group <profile> <group handle>")
        prof, h = self.profile_of(args[0]), self._int(args[1], "group handle")
        prof.delete_group(h, self._in_use(prof, lambda r: r is prof.groups.get(h)))
        return ""

    def _indirect_add(self, args: list[str], group: bool) -> str:
        if len(args) < 2:
            raise CliError("usage: table_indirect_add <table> <match fields> => <handle> [prio]")
        table = self.table(args[0])
        if table.profile is None:
            raise CliError(f"table {table.name} is not indirect")
        keys, rest = _split_arrow(args[1:])
        match, rest, prio = self._match(table, keys, rest, 1)
        h = self._int(rest[0], "group handle" if group else "member handle")
        ref = table.profile.group(h) if group else table.profile.member(h)
        if isinstance(ref, Group) and not ref.members:  # as simple_switch (a default may)
            raise CliError(f"table {table.name}: group {h} is empty (EMPTY_GRP)")
        handle = table.add(match, None, (), prio, ref)
        return f"Adding entry to indirect match table {args[0]}\nEntry has been added with handle {handle}"

    def cmd_table_indirect_add(self, args: list[str]) -> str:
        return self._indirect_add(args, False)

    def cmd_table_indirect_add_with_group(self, args: list[str]) -> str:
        return self._indirect_add(args, True)

    def _indirect_default(self, args: list[str], group: bool) -> str:
        if len(args) != 2:
            raise CliError("usage: table_indirect_set_default <table> <handle>")
        table = self.table(args[0])
        if table.profile is None:
            raise CliError(f"table {table.name} is not indirect")
        h = self._int(args[1], "handle")
        ref = table.profile.group(h) if group else table.profile.member(h)
        table.default = Entry(-1, (), 0, None, (), ref)
        return ""

    cmd_table_indirect_delete = cmd_table_delete
    cmd_table_indirect_reset_default = cmd_table_reset_default

    def cmd_table_indirect_set_default(self, args: list[str]) -> str:
        return self._indirect_default(args, False)

    def cmd_table_indirect_set_default_with_group(self, args: list[str]) -> str:
        return self._indirect_default(args, True)
