"""simple_switch_CLI's read-only commands on tables, profiles and value sets: dumps of
tables, entries, members and groups, table, action and value-set listings (mixed into
:class:`RuntimeCli`), printed as simple_switch_CLI 1.15 prints them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.target.cli_values import dump_match, key_name, parse_int, plain_hex
from emulator.target.errors import CliError
from emulator.target.handles import INDEX_MASK
from emulator.target.tables import ActionProfile, ActionSpec, Entry, Group, Member, Table

if TYPE_CHECKING:
    from emulator.target.switch import Switch


class DumpCommands:
    """Command handlers (``cmd_<name>``) that only read the switch."""

    sw: Switch

    if TYPE_CHECKING:  # RuntimeCli's

        def table(self, name: str) -> Table: ...

        def profile_of(self, name: str) -> ActionProfile: ...

        def value_set(self, name: str) -> str: ...

        def _match(
            self, table: Table, keys: list[str], rest: list[str], nparams: int
        ) -> tuple[list[Any], list[str], int]: ...

    def cmd_table_dump(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_dump <table>")
        t = self.table(args[0])
        lines = ["==========", "TABLE ENTRIES"]
        for e in sorted(t.entries.values(), key=lambda x: x.handle & INDEX_MASK):
            lines += ["**********", *self._entry_lines(t, e)]
        if t.profile is not None:  # an indirect table's dump shows its profile too
            lines += _profile_lines(t.profile)
        lines.append("==========")
        lines.append("Dumping default entry")
        lines.append(self._describe(t.default) if t.default else "EMPTY")
        lines.append("==========")
        return "\n".join(lines)

    def _entry_lines(self, t: Table, e: Entry) -> list[str]:
        lines = [f"Dumping entry {hex(e.handle)}", "Match key:"]
        lines += [dump_match(m, k) for m, k in zip(e.match, t.keys)]
        if t.needs_priority:
            lines.append(f"Priority: {e.priority}")
        return [*lines, self._describe(e)]

    def cmd_table_dump_entry(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: table_dump_entry <table> <entry handle>")
        t = self.table(args[0])
        return "\n".join(self._entry_lines(t, t.entry(parse_int(args[1], 0, "entry handle"))))

    def cmd_table_dump_entry_from_key(self, args: list[str]) -> str:
        if len(args) < 2:
            raise CliError("usage: table_dump_entry_from_key <table> <match fields> [priority]")
        t = self.table(args[0])
        match, _, prio = self._match(t, args[1 : 1 + len(t.keys)], args[1 + len(t.keys) :], 0)
        for e in t.entries.values():
            if list(e.match) == match and e.priority == prio:
                return "\n".join(self._entry_lines(t, e))
        raise CliError(f"table {t.name}: no entry with this key")

    @staticmethod
    def _describe(e: Entry) -> str:
        if e.ref is not None:
            kind = "group" if isinstance(e.ref, Group) else "member"
            return f"Index: {kind}({e.ref.handle})"
        if e.action is None:
            return "Action entry: NoAction - "
        return f"Action entry: {e.action.name} - {', '.join(plain_hex(d) for d in e.data)}"

    def cmd_act_prof_dump_member(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: act_prof_dump_member <action profile> <member handle>")
        m = self.profile_of(args[0]).member(parse_int(args[1], 0, "member handle"))
        return "\n".join(_member_lines(m))

    def cmd_act_prof_dump_group(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: act_prof_dump_group <action profile> <group handle>")
        return "\n".join(
            _group_lines(self.profile_of(args[0]).group(parse_int(args[1], 0, "group handle")))
        )

    def cmd_act_prof_dump(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: act_prof_dump <action profile>")
        return "\n".join(_profile_lines(self.profile_of(args[0])))

    def cmd_table_dump_member(self, args: list[str]) -> str:
        self._indirect_table(args, "table_dump_member <table> <member handle>")
        return self.cmd_act_prof_dump_member(args)

    def cmd_table_dump_group(self, args: list[str]) -> str:
        self._indirect_table(args, "table_dump_group <table> <group handle>")
        return self.cmd_act_prof_dump_group(args)

    def _indirect_table(self, args: list[str], usage: str) -> None:
        """The legacy per-table forms name an indirect table, not a profile."""
        if len(args) != 2:
            raise CliError(f"usage: {usage}")
        if self.table(args[0]).profile is None:
            raise CliError("Cannot run this command on non-indirect table")

    def cmd_show_pvs(self, args: list[str]) -> str:
        if args:
            raise CliError("usage: show_pvs")
        widths = self.sw.program.value_set_widths
        return "\n".join(f"{n:<30} [compressed bitwidth:{widths[n]}]" for n in sorted(widths))

    def cmd_pvs_get(self, args: list[str]) -> str:
        """The values of a parser value set, one per line, sorted (BMv2: in no order)."""
        if len(args) != 1:
            raise CliError("usage: pvs_get <value set>")
        name = self.value_set(args[0])
        nbytes = (self.sw.program.value_set_widths[name] + 7) // 8
        return "\n".join(
            v.to_bytes(nbytes, "big").hex() for v in sorted(self.sw.program.value_sets[name])
        )

    def cmd_table_info(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_info <table>")
        t = self.table(args[0])
        return "\n".join([_table_line(t), "*" * 80, self.cmd_table_show_actions(args)])

    def cmd_table_show_actions(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: table_show_actions <table>")
        return "\n".join(_action_line(a) for a in self.table(args[0]).actions.values())

    def cmd_show_tables(self, args: list[str]) -> str:
        return "\n".join(_table_line(t) for t in self.sw.tables.values())

    def cmd_show_actions(self, args: list[str]) -> str:
        return "\n".join(_action_line(a) for a in self.sw.program.actions.values())


_SEP = ",\t"  # simple_switch_CLI's separator of key fields and of action parameters


def _table_line(t: Table) -> str:
    keys = _SEP.join(f"{key_name(k)}({k.match_type}, {k.width})" for k in t.keys)
    return f"{t.name:<30} [implementation={t.profile.name if t.profile else None}, mk={keys}]"


def _action_line(a: ActionSpec) -> str:
    return f"{a.name:<30} [{_SEP.join(f'{n}({w})' for n, w in a.params)}]"


def _member_lines(m: Member) -> list[str]:
    data = ", ".join(plain_hex(d) for d in m.data)
    return [f"Dumping member {m.handle}", f"Action entry: {m.action.name} - {data}"]


def _group_lines(g: Group) -> list[str]:
    members = ", ".join(str(m.handle) for m in g.members)
    return [f"Dumping group {g.handle}", f"Members: [{members}]"]


def _profile_lines(prof: ActionProfile) -> list[str]:
    """A profile's members, and its groups when it has a selector, in handle order."""
    lines = ["==========", "MEMBERS"]
    for h in sorted(prof.members):
        lines += ["**********", *_member_lines(prof.members[h])]
    if prof.selector is not None:
        lines += ["==========", "GROUPS"]
        for h in sorted(prof.groups):
            lines += ["**********", *_group_lines(prof.groups[h])]
    return lines
