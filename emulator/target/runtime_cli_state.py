"""simple_switch_CLI commands on switch state: PRE, mirroring, registers, counters, meters,
queues, CRC parameters and parser value sets (mixed into :class:`RuntimeCli`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.target import hashes
from emulator.target.cli_values import format_counter, parse_int
from emulator.target.errors import CliError
from emulator.target.externs import Meter, MeterArray
from emulator.target.tables import Table

if TYPE_CHECKING:
    from emulator.target.switch import Switch


def resolve(names: dict[str, Any], name: str, what: str) -> Any:
    """Look ``name`` up exactly, then as a unique dotted suffix."""
    if name in names:
        return names[name]
    hits = [k for k in names if k.endswith("." + name)]
    if len(hits) == 1:
        return names[hits[0]]
    if hits:
        raise CliError(f"ambiguous {what} name '{name}': {', '.join(sorted(hits))}")
    raise CliError(f"invalid {what} name '{name}'")


class StateCommands:
    """Command handlers (``cmd_<name>``) that do not touch match tables' entries."""

    sw: Switch

    @staticmethod
    def _int(text: str, what: str, width: int = 0) -> int:
        return parse_int(text, width, what)

    # -- PRE, mirroring --------------------------------------------------------------------

    def cmd_mirroring_add(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: mirroring_add <mirror_id> <egress_port>")
        sid = self._int(args[0], "mirror id", 15)
        self.sw.mirror[sid] = (self._int(args[1], "egress port", 9), None)
        return ""

    def cmd_mirroring_add_mc(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: mirroring_add_mc <mirror_id> <mgrp>")
        sid = self._int(args[0], "mirror id", 15)
        self.sw.mirror[sid] = (None, self._int(args[1], "multicast group", 16))
        return ""

    def cmd_mirroring_set_priority(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: mirroring_set_priority <mirror_id> <priority>")
        sid = self._int(args[0], "mirror id", 15)
        self.sw.mirror_priority[sid] = self._int(args[1], "priority", 5)
        return ""

    def cmd_mirroring_delete(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: mirroring_delete <mirror_id>")
        sid = self._int(args[0], "mirror id")
        self.sw.mirror_priority.pop(sid, None)
        if self.sw.mirror.pop(sid, None) is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")
        return ""

    def cmd_mc_mgrp_create(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: mc_mgrp_create <group id>")
        g = self._int(args[0], "multicast group", 16)
        if g in self.sw.mc_groups:
            raise CliError(f"multicast group {g} already exists")
        self.sw.mc_groups[g] = []
        return f"Creating multicast group {g}"

    def cmd_mc_mgrp_destroy(self, args: list[str]) -> str:
        if len(args) != 1 or self.sw.mc_groups.pop(self._int(args[0], "group"), None) is None:
            raise CliError("usage: mc_mgrp_destroy <existing group id>")
        return f"Destroying multicast group {args[0]}"

    def cmd_mc_node_create(self, args: list[str]) -> str:
        if not args:
            raise CliError("usage: mc_node_create <rid> <port list>")
        rid = self._int(args[0], "rid", 16)
        ports, pmap = self._ports(args[1:])
        h = self.sw.mc_node_create(rid, ports)
        return f"Creating node with rid {rid} , port map {pmap} and lag map \nnode was created with handle {h}"

    def _ports(self, args: list[str]) -> tuple[list[int], str]:
        """A node's port list (up to a ``|`` and its lag list) and its port map as
        simple_switch_CLI prints it."""
        ports = [
            self._int(p, "port", 9) for p in (args[: args.index("|")] if "|" in args else args)
        ]
        return ports, format(sum(1 << p for p in set(ports)), "b") if ports else ""

    def cmd_mc_node_associate(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: mc_node_associate <group id> <node handle>")
        g, h = self._int(args[0], "group"), self._int(args[1], "node handle")
        self.sw.mc_node_associate(g, h)
        return f"Associating node {h} to multicast group {g}"

    def cmd_mc_dump(self, args: list[str]) -> str:
        lines = ["==========", "MC ENTRIES"]
        for g, nodes in sorted(self.sw.mc_groups.items()):
            lines += ["**********", f"mgrp({g})"]
            for h in nodes:
                rid, ports = self.sw.mc_nodes[h]
                lines.append(
                    f"  -> (L1h={h}, rid={rid}) -> (ports=[{', '.join(map(str, ports))}], lags=[])"
                )
        return "\n".join([*lines, "==========", "LAGS", "=========="])

    def cmd_mirroring_get(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: mirroring_get <mirror_id>")
        cfg = self.sw.mirror.get(self._int(args[0], "mirror id"))
        if cfg is None:
            raise CliError("Invalid mirroring operation (SESSION_NOT_FOUND)")
        return f"MirroringSessionConfig(mgid={cfg[1]}, port={cfg[0]})"

    def cmd_mc_node_dissociate(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: mc_node_dissociate <group id> <node handle>")
        g, h = self._int(args[0], "group"), self._int(args[1], "node handle")
        nodes = self.sw.mc_groups.get(g)
        if nodes is None or h not in nodes:
            raise CliError(f"node {h} is not associated with multicast group {g}")
        nodes.remove(h)
        return f"Dissociating node {h} from multicast group {g}"

    def _node(self, text: str) -> int:
        h = self._int(text, "node handle")
        if h not in self.sw.mc_nodes:
            raise CliError(f"multicast node {h} does not exist")
        return h

    def cmd_mc_node_update(self, args: list[str]) -> str:
        if len(args) < 2:  # as simple_switch_CLI: a port list is required
            raise CliError("usage: mc_node_update <node handle> <port list> [| <lag list>]")
        h = self._node(args[0])
        ports, pmap = self._ports(args[1:])
        self.sw.mc_nodes[h] = (self.sw.mc_nodes[h][0], sorted(set(ports)))
        return f"Updating node {h} with port map {pmap} and lag map "

    def cmd_mc_node_destroy(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: mc_node_destroy <node handle>")
        h = self._node(args[0])
        for nodes in self.sw.mc_groups.values():
            if h in nodes:
                nodes.remove(h)
        del self.sw.mc_nodes[h]
        return f"Destroying node {h}"

    def cmd_reset_state(self, args: list[str]) -> str:
        """As simple_switch: tables emptied (const entries too) with their JSON defaults
        back, action profiles, counters, registers, meters and multicast groups and nodes
        reset; mirroring sessions, parser value sets and queue settings kept."""
        if args:
            raise CliError("usage: reset_state")
        sw, prog = self.sw, self.sw.program
        for table in sw.tables.values():
            table.reset_state()
        for profile in prog.profiles.values():
            profile.reset_state()
        for arrays in (prog.meters, sw.counters, sw.registers):
            for array in arrays.values():
                array.reset()
        sw.mc_reset()
        return ""

    # -- registers, counters, meters -------------------------------------------------------

    def cmd_register_read(self, args: list[str]) -> str:
        if len(args) not in (1, 2):
            raise CliError("usage: register_read <name> [index]")
        reg = resolve(self.sw.registers, args[0], "register")
        if len(args) == 1:
            return f"{reg.name}= {', '.join(str(v) for v in reg.values)}"
        i = self._int(args[1], "index")
        if i >= reg.size:
            raise CliError(f"register {reg.name}: index {i} out of range (size {reg.size})")
        return f"{reg.name}[{i}]= {reg.values[i]}"

    def cmd_register_write(self, args: list[str]) -> str:
        if len(args) != 3:
            raise CliError("usage: register_write <name> <index> <value>")
        reg = resolve(self.sw.registers, args[0], "register")
        i = self._int(args[1], "index")
        if i >= reg.size:
            raise CliError(f"register {reg.name}: index {i} out of range (size {reg.size})")
        reg.values[i] = self._int(args[2], "value", reg.width)
        return ""

    def cmd_register_reset(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: register_reset <name>")
        resolve(self.sw.registers, args[0], "register").reset()
        return ""

    def _direct_table(self, ctr: Any) -> Table:
        return self.sw.tables[ctr.direct_table]

    def cmd_counter_read(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: counter_read <name> <index>")
        ctr = resolve(self.sw.counters, args[0], "counter")
        i = self._int(args[1], "index")
        if ctr.direct_table:
            e = self._direct_table(ctr).entry(i)
            return format_counter(args[0], i, e.bytes, e.packets, ctr.direct_table)
        if i >= ctr.size:
            raise CliError(f"counter {ctr.name}: index {i} out of range (size {ctr.size})")
        return format_counter(args[0], i, ctr.bytes[i], ctr.packets[i])

    def cmd_counter_write(self, args: list[str]) -> str:
        if len(args) != 4:
            raise CliError("usage: counter_write <name> <index> <packets> <bytes>")
        ctr = resolve(self.sw.counters, args[0], "counter")
        i = self._int(args[1], "index")
        packets, nbytes = self._int(args[2], "packets"), self._int(args[3], "bytes")
        done = f"{args[0]}[{i}] has been updated"  # as simple_switch_CLI
        if ctr.direct_table:
            e = self._direct_table(ctr).entry(i)
            e.packets, e.bytes = packets, nbytes
            return f"writing to direct counter for table {ctr.direct_table}\n{done}"
        if i >= ctr.size:
            raise CliError(f"counter {ctr.name}: index {i} out of range (size {ctr.size})")
        ctr.packets[i], ctr.bytes[i] = packets, nbytes
        return done

    def cmd_counter_reset(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: counter_reset <name>")
        ctr = resolve(self.sw.counters, args[0], "counter")
        if ctr.direct_table:
            for e in self._direct_table(ctr).entries.values():
                e.packets = e.bytes = 0
        else:
            ctr.reset()
        return ""

    @staticmethod
    def _rates(args: list[str]) -> list[tuple[float, float]]:
        out = []
        for a in args:
            try:
                r, b = a.split(":")
                rate, burst = float(r), float(int(b))
            except ValueError:
                raise CliError(f"invalid meter rate {a!r} (expected <rate>:<burst>)") from None
            if not (0 <= rate < float("inf") and burst >= 0):
                raise CliError(f"invalid meter rate {a!r}: rate and burst must be >= 0")
            out.append((rate, burst))
        return out

    def cmd_meter_array_set_rates(self, args: list[str]) -> str:
        if len(args) < 2:
            raise CliError("usage: meter_array_set_rates <name> <rate>:<burst> ...")
        resolve(self.sw.program.meters, args[0], "meter").set_rates(self._rates(args[1:]))
        return ""

    def cmd_meter_set_rates(self, args: list[str]) -> str:
        if len(args) < 3:
            raise CliError("usage: meter_set_rates <name> <index> <rate>:<burst> ...")
        arr = resolve(self.sw.program.meters, args[0], "meter")
        i, rates = self._int(args[1], "index"), self._rates(args[2:])
        meter = self._meter_at(arr, i)
        if len(rates) != arr.rate_count:
            raise CliError(f"meter {arr.name} needs {arr.rate_count} rates, got {len(rates)}")
        meter.set_rates(rates)
        return ""

    def cmd_meter_get_rates(self, args: list[str]) -> str:
        if len(args) != 2:
            raise CliError("usage: meter_get_rates <meter> <index>")
        arr = resolve(self.sw.program.meters, args[0], "meter")
        rates = reversed(self._meter_at(arr, self._int(args[1], "index")).rates)  # lowest first
        return "\n".join(
            f"{n}: info rate = {r.rate}, burst size = {r.burst}" for n, r in enumerate(rates)
        )

    def _meter_at(self, arr: MeterArray, i: int) -> Meter:
        """Meter ``i`` of ``arr``; of a direct meter, the meter of table entry ``i``."""
        table = self.sw.program.direct_meters.get(arr.name, {}).get("binding")
        if table is None:
            return arr.meter(i)
        meter = self.sw.tables[str(table)].entry(i).meter
        if meter is None:
            raise CliError(f"table entry {i} has no meter")
        return meter

    # -- traffic manager, hashes, value sets -----------------------------------------------

    def _queue_args(self, args: list[str], usage: str) -> tuple[float, int | None, int | None]:
        if not 1 <= len(args) <= 3:
            raise CliError(f"usage: {usage} [<egress_port> [<priority>]]")
        try:
            value = float(args[0])
        except ValueError:
            raise CliError(f"{usage}: invalid number {args[0]!r}") from None
        if not value >= 0 or value == float("inf"):
            raise CliError(f"{usage}: expected a non-negative number, got {args[0]!r}")
        port = self._int(args[1], "port", 9) if len(args) > 1 else None
        prio = self._int(args[2], "priority") if len(args) > 2 else None
        return value, port, prio

    def cmd_set_queue_depth(self, args: list[str]) -> str:
        depth, port, prio = self._queue_args(args, "set_queue_depth <nb_pkts>")
        self.sw.tm.set_queue_depth(int(depth), port, prio)
        return ""

    def cmd_set_queue_rate(self, args: list[str]) -> str:
        rate, port, prio = self._queue_args(args, "set_queue_rate <rate_pps>")
        self.sw.tm.set_queue_rate(rate, port, prio)
        return ""

    def _set_crc(self, args: list[str], width: int) -> str:
        if len(args) != 6:
            raise CliError(
                f"usage: set_crc{width}_parameters <calc> <poly> <init> <xor> "
                "<reflect data> <reflect remainder>"
            )
        calc = resolve(self.sw.program.calculations, args[0], "calculation")
        if calc.algo != f"crc{width}_custom":
            raise CliError(f"calculation {calc.name} is not crc{width}_custom")
        nums = [self._int(a, "crc parameter", width) for a in args[1:4]]
        flags = [a.lower() in ("true", "1") for a in args[4:6]]
        calc.params = hashes.CrcParams(width, nums[0], nums[1], nums[2], flags[0], flags[1])
        return ""

    def cmd_set_crc16_parameters(self, args: list[str]) -> str:
        return self._set_crc(args, 16)

    def cmd_set_crc32_parameters(self, args: list[str]) -> str:
        return self._set_crc(args, 32)

    def value_set(self, name: str) -> str:
        """A parser value set's JSON name, which must be typed in full: simple_switch_CLI
        resolves a suffix but sends the name as typed, which simple_switch refuses."""
        widths = self.sw.program.value_set_widths
        if name not in widths:
            full = resolve(dict(zip(widths, widths)), name, "parser value set")
            raise CliError(
                f"parser value set '{name}': give its full name '{full}' (INVALID_PARSE_VSET_NAME)"
            )
        return name

    def _pvs_value(self, args: list[str], usage: str) -> tuple[set[int], int]:
        if len(args) != 2:
            raise CliError(f"usage: {usage} <value set> <value>")
        name = self.value_set(args[0])
        width = self.sw.program.value_set_widths[name]
        return self.sw.program.value_sets[name], self._int(args[1], "value", width)

    def cmd_pvs_add(self, args: list[str]) -> str:
        values, v = self._pvs_value(args, "pvs_add")
        values.add(v)  # as BMv2: adding a value twice is no error
        return ""

    def cmd_pvs_remove(self, args: list[str]) -> str:
        values, v = self._pvs_value(args, "pvs_remove")
        values.discard(v)  # as BMv2: removing an absent value is no error
        return ""

    def cmd_pvs_clear(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CliError("usage: pvs_clear <value set>")
        self.sw.program.value_sets[self.value_set(args[0])].clear()
        return ""
