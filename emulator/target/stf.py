"""Run p4c's STF packet tests against the built-in target.

STF commands: ``packet <port> <hex>``, ``expect <port> [<hex with * nibbles>[$]]``,
``add <table> [<prio>] <key>:<value>... <action>(<param>:<value>, ...)``,
``setdefault <table> <action>(...)``, ``wait``, ``# comments``; simple_switch_CLI commands
(``mirroring_add``, ``mc_*``, ``act_prof_*``, ``register_write``...) are passed to the CLI.
As in p4c's bmv2stf, a larger STF priority wins (BMv2 priority = 10000 - STF priority),
and outputs are compared per port, in order, after all packets were sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import read_text
from emulator.target.cli_values import parse_int, parse_match
from emulator.target.errors import CliError, StfError
from emulator.target.runtime_cli import RuntimeCli, resolve
from emulator.target.switch import Switch
from emulator.target.tables import ActionSpec, Entry, KeyField, Table, lpm_width

#: simple_switch_CLI commands an STF file may use verbatim (a fabemu extension).
CLI_COMMANDS = frozenset(n[4:] for n in dir(RuntimeCli) if n.startswith("cmd_"))

_ADD_RE = re.compile(r"(?P<head>[^(]*?)\s*(?P<action>[\w.$\[\]]+)\((?P<args>[^)]*)\)\s*$")


@dataclass
class StfResult:
    """Outcome of one STF run; ``str()`` is the human-readable report."""

    passed: bool
    message: str
    outputs: dict[int, list[bytes]] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


def load_program(path: str | Path) -> dict[str, Any] | str:
    """A .json program as a path; a .p4 program compiled with ``emulator.p4c``."""
    p = Path(path)
    if p.suffix != ".p4":
        return str(p)
    try:
        from emulator.p4c import compile_file  # type: ignore[attr-defined]
    except ImportError:
        raise StfError(
            f"{p}: the built-in P4 front end (emulator.p4c.compile_file) is not available; "
            "compile with p4c-bm2-ss and pass the .json instead"
        ) from None
    return compile_file(str(p))


def _key_field(table: Table, name: str) -> tuple[int, KeyField]:
    name = re.sub(r"\$(\d+)", r"[\1]", name)
    cands = [name, name + "$", name.removesuffix(".valid") + ".$valid$", name + ".$valid$"]
    for i, k in enumerate(table.keys):
        if k.name in cands or k.target in cands:
            return i, k
    hits = [
        (i, k)
        for i, k in enumerate(table.keys)
        if any(n.endswith("." + name) or name.endswith("." + n) for n in (k.name, k.target))
    ]
    if len(hits) == 1:
        return hits[0]
    raise StfError(f"table {table.name} has no key field '{name}'")


def _stf_match(value: str, kf: KeyField) -> Any:
    mt, w = kf.match_type, kf.width
    if mt == "lpm" and "/" not in value:  # the prefix counts over whole bytes (lpm_width)
        if "*" in value:
            plen = min(w, max(0, lpm_width(w) - 4 * value.count("*")))
            value = f"{value.replace('*', '0')}/{plen}"
        else:
            value = f"{value}/{w}"
    elif mt in ("ternary", "optional") and "&&&" not in value:
        if "*" in value and value.lower().startswith("0x"):
            digits = value[2:]
            mask = "".join("0" if c == "*" else "f" for c in digits)
            value = f"0x{digits.replace('*', '0')}&&&0x{mask}"
        else:
            value = f"{value}&&&{(1 << w) - 1}"
    elif mt == "range" and "->" not in value:
        value = f"{value}->{value}"
    return parse_match(value, kf)


def _action(table: Table, name: str) -> ActionSpec:
    return resolve(table.actions, name, f"action for table {table.name}")


def _args(action: ActionSpec, text: str) -> tuple[int, ...]:
    given: dict[str, str] = {}
    for part in filter(None, (x.strip() for x in text.split(","))):
        if ":" not in part:
            raise StfError(f"action argument {part!r} is not name:value")
        k, v = part.split(":", 1)
        given[k.strip()] = v.strip()
    names = [n for n, _ in action.params]
    unknown = set(given) - set(names)
    if unknown or len(given) != len(names):
        raise StfError(f"action {action.name} takes ({', '.join(names)}), got ({text})")
    return tuple(parse_int(given[n], w, f"{action.name}.{n}") for n, w in action.params)


def cli_command(table: Table, entry: Entry) -> str:
    """The simple_switch_CLI command that recreates ``entry`` (STF -> real BMv2 CLI)."""
    if entry.action is None:
        raise StfError(f"table {table.name}: indirect entries have no table_add form")
    data = " ".join(str(v) for v in entry.data)
    if entry.handle < 0:
        return f"table_set_default {table.name} {entry.action.name} {data}".rstrip()
    keys = []
    for spec, kf in zip(entry.match, table.keys):
        if kf.match_type == "lpm":
            keys.append(f"{spec[0]}/{spec[1]}")
        elif kf.match_type in ("ternary", "optional"):
            keys.append(f"{spec[0]}&&&{spec[1]}")
        elif kf.match_type == "range":
            keys.append(f"{spec[0]}->{spec[1]}")
        else:
            keys.append(str(spec))
    prio = f" {entry.priority}" if table.needs_priority else ""
    return f"table_add {table.name} {entry.action.name} {' '.join(keys)} => {data}{prio}"


class StfRunner:
    """Executes STF lines against a switch, collecting outputs and expectations."""

    def __init__(self, sw: Switch) -> None:
        self.sw = sw
        self.expected: dict[int, list[str]] = {}
        self.any_ports: set[int] = set()
        self.outputs: dict[int, list[bytes]] = {}

    def command(self, line: str) -> None:
        """Run one STF line (already stripped of its comment)."""
        words = line.split(None, 1)
        if not words:
            return
        cmd, rest = words[0], (words[1] if len(words) > 1 else "")
        if cmd == "packet":
            port, data = self._port_data(rest)
            for eport, out in self.sw.process(port, packet_bytes(data)):
                self.outputs.setdefault(eport, []).append(out)
        elif cmd == "expect":
            port, data = self._port_data(rest)
            if data:
                if not re.fullmatch(r"[0-9a-fA-F*]*\$?", data):
                    raise StfError(f"expect: invalid hex pattern {data!r}")
                self.expected.setdefault(port, []).append(data)
            else:
                self.any_ports.add(port)
        elif cmd == "add":
            self._add(rest)
        elif cmd == "setdefault":
            self._setdefault(rest)
        elif cmd == "wait":
            return
        elif cmd in CLI_COMMANDS:
            self.sw.cli(line)
        else:
            raise StfError(f"unknown STF command '{cmd}'")

    @staticmethod
    def _port_data(rest: str) -> tuple[int, str]:
        parts = rest.split(None, 1)
        if not parts or not parts[0].isdigit():
            raise StfError(f"expected a port number, got {rest!r}")
        return int(parts[0]), "".join(parts[1].split()) if len(parts) > 1 else ""

    def _table(self, name: str) -> Table:
        return resolve(self.sw.tables, name, "table")

    def _add(self, rest: str) -> None:
        m = _ADD_RE.match(rest)
        if not m:
            raise StfError(
                f"add: expected '<table> [prio] key:value... action(args)', got {rest!r}"
            )
        head = m.group("head").split()
        if not head:
            raise StfError("add: missing table name")
        table = self._table(head[0])
        words = head[1:]
        prio = None
        if words and words[0].isdigit():
            prio = int(words.pop(0))
        match: list[Any] = [None] * len(table.keys)
        for w in words:
            if ":" not in w:
                raise StfError(f"add: key {w!r} is not name:value")
            k, v = w.split(":", 1)
            i, kf = _key_field(table, k)
            match[i] = _stf_match(v, kf)
        for i, kf in enumerate(table.keys):
            if match[i] is None:  # unspecified keys are wildcards, as in bmv2stf
                match[i] = _stf_match(
                    "0&&&0"
                    if kf.match_type in ("ternary", "optional")
                    else "0/0"
                    if kf.match_type == "lpm"
                    else f"0->{(1 << kf.width) - 1}"
                    if kf.match_type == "range"
                    else "0",
                    kf,
                )
        action = _action(table, m.group("action"))
        data = _args(action, m.group("args"))
        priority = 10000 - (prio or 0) if table.needs_priority else 0
        table.add(match, action, data, priority)

    def _setdefault(self, rest: str) -> None:
        m = re.fullmatch(r"\s*(\S+)\s+([\w.$\[\]]+)\((.*)\)\s*", rest)
        if not m:
            raise StfError(f"setdefault: expected '<table> <action>(args)', got {rest!r}")
        table = self._table(m.group(1))
        action = _action(table, m.group(2))
        table.default = Entry(-1, (), 0, action, _args(action, m.group(3)))

    def check(self) -> StfResult:
        """Compare outputs with expectations; the report lists every difference."""
        lines, ok = [], True
        for port in sorted(set(self.expected) | set(self.outputs)):
            got = self.outputs.get(port, [])
            if port in self.any_ports:
                continue
            want = self.expected.get(port, [])
            for i in range(max(len(want), len(got))):
                w = want[i] if i < len(want) else None
                g = got[i].hex().upper() if i < len(got) else None
                problem = _compare(w, g)
                if problem:
                    ok = False
                    lines.append(f"port {port} packet {i}: {problem}")
                    lines.append(f"  expected: {w or '(nothing)'}")
                    lines.append(f"  received: {g or '(nothing)'}")
        n_out = sum(len(v) for v in self.outputs.values())
        summary = f"STF {'PASS' if ok else 'FAIL'}: {n_out} packet(s) out"
        return StfResult(ok, "\n".join([summary, *lines]), self.outputs)


def packet_bytes(data: str) -> bytes:
    """A ``packet`` line's hex digits as bytes, two digits a byte; a trailing odd digit is the
    value of a last byte (p4c's samples write ``... 20 0`` for ``20 00``)."""
    if len(data) % 2:
        data = data[:-1] + "0" + data[-1]
    try:
        return bytes.fromhex(data)
    except ValueError:
        raise StfError(f"packet: invalid hex data {data!r}") from None


def _compare(want: str | None, got: str | None) -> str | None:
    if want is None:
        return "unexpected packet"
    if got is None:
        return "expected packet not received"
    exact = want.endswith("$")
    pattern = want.rstrip("$").upper()
    if len(got) < len(pattern):
        return f"received packet too short ({len(got) // 2} < {len(pattern) // 2} bytes)"
    for i, c in enumerate(pattern):
        if c != "*" and c != got[i]:
            return f"differs at nibble {i} (byte {i // 2}): expected {c}, received {got[i]}"
    if exact and len(got) != len(pattern):
        return f"length differs: expected exactly {len(pattern) // 2} bytes, got {len(got) // 2}"
    return None


def run_stf(
    program: dict[str, Any] | str | Path,
    stf_path: str | Path,
    switch: Switch | None = None,
    priority_queues: int = 1,
) -> StfResult:
    """Run the STF file ``stf_path`` against ``program`` (dict, .json or .p4 path).

    ``priority_queues`` is simple_switch's ``--priority-queues`` (default 1, as bmv2stf):
    packets whose ``standard_metadata.priority`` has no queue are dropped.
    """
    path = Path(stf_path)
    text = read_text(path, "STF file", StfError)
    if switch is None:
        prog = load_program(program) if isinstance(program, (str, Path)) else program
        switch = Switch(prog, priority_queues=priority_queues)
    runner = StfRunner(switch)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        try:
            runner.command(line)
        except (StfError, CliError) as exc:
            raise StfError(f"{path}:{n}: {exc}") from None
    return runner.check()


def stf_to_cli(program: dict[str, Any] | str, stf_path: str | Path) -> list[tuple[str, Any]]:
    """Translate an STF file into ordered steps ``("cli", text)`` / ``("packet", (port, bytes))``.

    ``add``/``setdefault`` are resolved by our runner on a probe switch (names, priorities,
    don't-care nibbles) and written back as simple_switch_CLI text; CLI lines pass through.
    This is how an STF test is replayed on a real simple_switch. The probe switch is built
    only for an STF that has ``add``/``setdefault`` lines.
    """
    probe: StfRunner | None = None
    steps: list[tuple[str, Any]] = []
    for n, raw in enumerate(read_text(stf_path, "STF file", StfError).splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        try:
            if line.startswith("packet "):
                port, data = StfRunner._port_data(line.split(None, 1)[1])
                steps.append(("packet", (port, packet_bytes(data))))
            elif line.startswith(("add ", "setdefault ")):
                probe = probe or StfRunner(Switch(program))
                before = {t.name: set(t.entries) for t in probe.sw.tables.values()}
                probe.command(line)
                for t in probe.sw.tables.values():
                    for h in sorted(set(t.entries) - before[t.name]):
                        steps.append(("cli", cli_command(t, t.entries[h])))
                if line.startswith("setdefault "):
                    t = probe._table(line.split()[1])
                    steps.append(("cli", cli_command(t, t.default)))  # type: ignore[arg-type]
            elif line and not line.startswith(("expect", "wait")):
                steps.append(("cli", line))
        except (StfError, CliError, ValueError) as exc:
            raise StfError(f"{stf_path}:{n}: {exc}") from None
    return steps
