"""The switch runtime API as typed operations: what a control plane asks of a P4 switch.

    TableAdd("RoceIngress.port_mac", "RoceEgress.set_src_mac", keys=(1,), params=(Mac(...),))

Each operation is a frozen value. ``op.cli()`` is its simple_switch_CLI line (the text path:
command files, real BMv2, the built-in target's control socket); :func:`apply_op` runs it on an
in-process :class:`~emulator.target.switch.Switch` through its tables, action profiles,
mirroring sessions and traffic manager directly, without rendering text and parsing it back.
Both paths leave a switch in the same state (``tests/target/test_ops.py``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emulator.target.errors import CliError
from emulator.target.runtime_cli import RuntimeCli
from emulator.target.runtime_cli_state import resolve
from emulator.target.tables import ActionSpec, Entry, KeyField

if TYPE_CHECKING:
    from emulator.target.switch import Switch


@dataclass(frozen=True)
class Mac:
    """A 48-bit MAC address value (rendered ``aa:bb:cc:dd:ee:ff``)."""

    value: int

    @classmethod
    def parse(cls, text: str) -> Mac:
        """``aa:bb:cc:dd:ee:ff`` -> Mac."""
        return cls(int(text.replace(":", ""), 16))

    def __str__(self) -> str:
        raw = self.value.to_bytes(6, "big")
        return ":".join(f"{b:02x}" for b in raw)


#: an action parameter or exact key (int, MAC) or an LPM key (IPv4 prefix)
Value = int | Mac | ipaddress.IPv4Network


def _text(values: Iterable[Value]) -> str:
    return " ".join(str(v) for v in values)


@dataclass(frozen=True)
class Comment:
    """A comment line of a command file (``""``: a blank line); no effect on a switch."""

    text: str

    def cli(self) -> str:
        """``# text`` (or the blank line)."""
        return f"# {self.text}" if self.text else ""


@dataclass(frozen=True)
class TableSetDefault:
    """Set a table's default action."""

    table: str
    action: str
    params: tuple[Value, ...] = ()

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"table_set_default {self.table} {self.action} {_text(self.params)}".rstrip()


@dataclass(frozen=True)
class TableAdd:
    """Add a direct table entry."""

    table: str
    action: str
    keys: tuple[Value, ...]
    params: tuple[Value, ...] = ()

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"table_add {self.table} {self.action} {_text(self.keys)} => {_text(self.params)}"


@dataclass(frozen=True)
class CreateMember:
    """Create an action-profile member; ``handle`` is the handle the plan expects."""

    profile: str
    action: str
    params: tuple[Value, ...] = ()
    handle: int | None = None

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        line = f"act_prof_create_member {self.profile} {self.action} {_text(self.params)}"
        return line.rstrip()


@dataclass(frozen=True)
class CreateGroup:
    """Create an action-selector group; ``handle`` is the handle the plan expects."""

    profile: str
    handle: int | None = None

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"act_prof_create_group {self.profile}"


@dataclass(frozen=True)
class AddMember:
    """Put a member into a group."""

    profile: str
    member: int
    group: int

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"act_prof_add_member_to_group {self.profile} {self.member} {self.group}"


@dataclass(frozen=True)
class RemoveMember:
    """Take a member out of a group."""

    profile: str
    member: int
    group: int

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"act_prof_remove_member_from_group {self.profile} {self.member} {self.group}"


@dataclass(frozen=True)
class AddWithGroup:
    """Add an indirect table entry pointing at a group."""

    table: str
    keys: tuple[Value, ...]
    group: int

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"table_indirect_add_with_group {self.table} {_text(self.keys)} => {self.group}"


@dataclass(frozen=True)
class MirroringAdd:
    """Map a mirror (clone) session to an egress port."""

    session: int
    port: int

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"mirroring_add {self.session} {self.port}"


@dataclass(frozen=True)
class MirroringPriority:
    """Queue copies of a mirror session at ``priority`` (a built-in target extension).

    simple_switch resets a clone's priority to 0, the lowest queue; a switch's own frames
    that must not wait behind data (PFC frames) need a higher one. Real BMv2 has no such
    command (its process switches skip the line)."""

    session: int
    priority: int

    def cli(self) -> str:
        """The built-in target's runtime command line."""
        return f"{MIRRORING_PRIORITY_CMD} {self.session} {self.priority}"


MIRRORING_PRIORITY_CMD = "mirroring_set_priority"


def simple_switch_has(line: str) -> bool:
    """False for a command line of a built-in target extension (``mirroring_set_priority``):
    paths to real simple_switch_CLI leave those out."""
    return not line.lstrip().startswith(MIRRORING_PRIORITY_CMD)


@dataclass(frozen=True)
class RegisterWrite:
    """Write one register cell."""

    register: str
    index: int
    value: int

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return f"register_write {self.register} {self.index} {self.value}"


@dataclass(frozen=True)
class SetQueueDepth:
    """Queue depth in packets (every queue, a port's, or one queue)."""

    depth: int
    port: int | None = None
    priority: int | None = None

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return _queue_line("set_queue_depth", f"{self.depth}", self.port, self.priority)


@dataclass(frozen=True)
class SetQueueRate:
    """Queue rate in packets per second (0: unlimited)."""

    rate_pps: float
    port: int | None = None
    priority: int | None = None

    def cli(self) -> str:
        """The simple_switch_CLI line."""
        return _queue_line("set_queue_rate", f"{self.rate_pps:g}", self.port, self.priority)


def _queue_line(cmd: str, value: str, port: int | None, prio: int | None) -> str:
    extra = [str(x) for x in (port, prio) if x is not None]
    return " ".join([cmd, value, *extra])


#: an operation on a switch (Comment: none)
SwitchOp = (
    Comment
    | TableSetDefault
    | TableAdd
    | CreateMember
    | CreateGroup
    | AddMember
    | RemoveMember
    | AddWithGroup
    | MirroringAdd
    | MirroringPriority
    | RegisterWrite
    | SetQueueDepth
    | SetQueueRate
)


def to_text(ops: Iterable[SwitchOp]) -> str:
    """A command file: one line per operation (comments included), newline-terminated."""
    return "".join(op.cli() + "\n" for op in ops)


def command_ops(ops: Iterable[SwitchOp]) -> list[SwitchOp]:
    """``ops`` without comments: what a switch executes."""
    return [op for op in ops if not isinstance(op, Comment)]


# -- the in-process path -----------------------------------------------------------------------


def _int(v: Value, width: int, what: str) -> int:
    n = v.value if isinstance(v, Mac) else v
    if not isinstance(n, int) or n < 0 or (width and n >> width):
        raise CliError(f"{what}: {v} does not fit in {width} bits")
    return n


def _key(v: Value, kf: KeyField) -> Any:
    if kf.match_type == "lpm":
        if not isinstance(v, ipaddress.IPv4Network):
            raise CliError(f"key {kf.name} (lpm): expected a prefix, got {v}")
        return int(v.network_address), v.prefixlen
    if kf.match_type != "exact":
        raise CliError(f"key {kf.name}: {kf.match_type} keys are not typed operations")
    return _int(v, kf.width, f"key {kf.name}")


def _data(action: ActionSpec, params: tuple[Value, ...]) -> tuple[int, ...]:
    if len(params) != len(action.params):
        raise CliError(
            f"action {action.name} takes {len(action.params)} parameter(s), got {len(params)}"
        )
    return tuple(
        _int(v, w, f"parameter {n} of {action.name}") for v, (n, w) in zip(params, action.params)
    )


def _expect(what: str, got: int, want: int | None) -> None:
    if want is not None and got != want:
        raise CliError(
            f"the switch assigned {what} handle {got}, the plan expected {want} "
            "(was the switch fresh?)"
        )


def apply_op(sw: Switch, op: SwitchOp, names: RuntimeCli | None = None) -> None:
    """Run one operation on an in-process switch (CliError if the switch refuses it).

    ``names`` resolves table/action/profile names as the CLI does (full or dotted suffix).
    """
    names = names or RuntimeCli(sw)
    sw.flush_caches()
    if isinstance(op, Comment):
        return
    if isinstance(op, TableSetDefault):
        table = names.table(op.table)
        action = names.action(table, op.action)
        table.default = Entry(-1, (), 0, action, _data(action, op.params))
    elif isinstance(op, TableAdd):
        table = names.table(op.table)
        action = names.action(table, op.action)
        match = [_key(v, kf) for v, kf in zip(op.keys, table.keys, strict=True)]
        table.add(match, action, _data(action, op.params))
    elif isinstance(op, CreateMember):
        prof = names.profile_of(op.profile)
        action = names.profile_action(prof, op.action)
        _expect("member", prof.create_member(action, _data(action, op.params)), op.handle)
    elif isinstance(op, CreateGroup):
        _expect("group", names.profile_of(op.profile).create_group(), op.handle)
    elif isinstance(op, AddMember):
        names.profile_of(op.profile).add_to_group(op.member, op.group)
    elif isinstance(op, RemoveMember):
        names.profile_of(op.profile).remove_from_group(op.member, op.group)
    elif isinstance(op, AddWithGroup):
        table = names.table(op.table)
        if table.profile is None:
            raise CliError(f"table {table.name} is not indirect")
        match = [_key(v, kf) for v, kf in zip(op.keys, table.keys, strict=True)]
        table.add(match, None, (), 0, table.profile.group(op.group))
    elif isinstance(op, MirroringAdd):
        sw.mirror[_int(op.session, 15, "mirror id")] = (_int(op.port, 9, "egress port"), None)
    elif isinstance(op, MirroringPriority):
        session = _int(op.session, 15, "mirror id")
        sw.mirror_priority[session] = _int(op.priority, 5, "priority")
    elif isinstance(op, RegisterWrite):
        _register_write(sw, op)
    elif isinstance(op, SetQueueDepth):
        sw.tm.set_queue_depth(op.depth, op.port, op.priority)
    elif isinstance(op, SetQueueRate):
        sw.tm.set_queue_rate(op.rate_pps, op.port, op.priority)
    else:
        raise CliError(f"not a switch operation: {op!r}")


def _register_write(sw: Switch, op: RegisterWrite) -> None:
    reg = resolve(sw.registers, op.register, "register")
    if not 0 <= op.index < reg.size:
        raise CliError(f"register {reg.name}: index {op.index} out of range (size {reg.size})")
    reg.values[op.index] = _int(op.value, reg.width, f"register {reg.name} value")


def apply_ops(sw: Switch, ops: Iterable[SwitchOp], where: str = "switch") -> None:
    """Run ``ops`` in order on ``sw``; a refusal names the switch and the operation."""
    names = RuntimeCli(sw)
    for number, op in enumerate(command_ops(ops), 1):
        try:
            apply_op(sw, op, names)
        except CliError as exc:
            raise CliError(f"{where}: operation {number} `{op.cli()}` failed: {exc}") from None
