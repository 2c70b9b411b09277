"""Compile a whole BMv2 JSON program: externs, actions, parser, tables, control flow.

The control flow of each pipeline becomes a chain of callables ``node(f, p) -> next``
(tables' ``apply`` or generated conditional functions); :func:`run` follows it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from emulator import speedups
from emulator.target.codegen import CodeGen, hexint
from emulator.target.errors import CliError, ProgramError
from emulator.target.externs import CounterArray, Meter, MeterArray, RegisterArray
from emulator.target.packet_parser import Calculation, Checksums, Deparser, Parser
from emulator.target.primitives import ActionCompiler, ActionEnv
from emulator.target.program import Layout, load_json, need
from emulator.target.tables import ActionProfile, ActionSpec, Entry, KeyField, Table


def run(node: Any, f: list[int], p: Any) -> None:
    """Follow a pipeline's control flow from ``node`` until it ends (or ``exit``)."""
    while node is not None:
        node = node(f, p)


class CompiledProgram:
    """Everything the switch needs from one BMv2 JSON program, compiled to closures."""

    def __init__(
        self,
        program: dict[str, Any] | str,
        clock_us: Callable[[], float] = lambda: 0.0,
        seed: int = 0,
        log: Callable[[str], None] = print,
    ) -> None:
        doc = load_json(program)
        try:
            self._build(doc, clock_us, seed, log)
        except ProgramError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            msg = f"BMv2 JSON: malformed program ({type(exc).__name__}: {exc})"
            raise ProgramError(msg) from None

    def _build(
        self,
        doc: dict[str, Any],
        clock_us: Callable[[], float],
        seed: int,
        log: Callable[[str], None],
    ) -> None:
        self.layout = layout = Layout(doc)
        self.cg = cg = CodeGen(layout)
        self.value_set_widths: dict[str, int] = {
            str(v["name"]): int(v["compressed_bitwidth"]) for v in doc.get("parse_vsets", [])
        }
        self.value_sets: dict[str, set[int]] = {n: set() for n in self.value_set_widths}
        cg.ns["_vsets"] = self.value_sets
        self._build_stateful(doc, clock_us)
        deparsers = doc.get("deparsers", [])
        self.deparser = Deparser(cg, deparsers[0] if deparsers else {"order": []})
        self.rng = random.Random(seed)
        cg.ns["_rng"] = self.rng
        self.calculations = {
            str(c["name"]): Calculation(cg, c, self.deparser) for c in doc.get("calculations", [])
        }
        env = ActionEnv(
            self.registers, self.counters, self.meters, dict(self.calculations), self.rng, log
        )
        ac = ActionCompiler(cg, env, layout.std)
        self.actions: dict[int, ActionSpec] = {}
        for a in doc.get("actions", []):
            params = [(str(r["name"]), int(r["bitwidth"])) for r in a.get("runtime_data", [])]
            self.actions[int(a["id"])] = ActionSpec(
                str(a["name"]), int(a["id"]), params, ac.compile(a)
            )
        parsers = need(doc, "parsers", "the program")
        if not parsers:
            raise ProgramError("BMv2 JSON: the program has no parser")
        self.parser = Parser(cg, parsers[0], ac, speedups.enabled("FASTPARSE"))
        self.checksums = Checksums(cg, doc.get("checksums", []), self.calculations)
        self.field_lists = {
            int(fl["id"]): [
                layout.field(str(e["value"][0]), str(e["value"][1]))[0]
                for e in fl.get("elements", [])
                if e.get("type") == "field"
            ]
            for fl in doc.get("field_lists", [])
        }
        self.learn_lists = {
            int(ll["id"]): (
                str(ll.get("name", "")),
                [
                    layout.field(str(e["value"][0]), str(e["value"][1]))[0]
                    for e in ll.get("elements", [])
                    if e.get("type") == "field"
                ],
            )
            for ll in doc.get("learn_lists", [])
        }
        self.tables: dict[str, Table] = {}
        self._pending_next: list[tuple[Table, dict[str, Any]]] = []
        self.profiles: dict[str, ActionProfile] = {}
        pipes = need(doc, "pipelines", "the program")
        by_name = {str(p.get("name")): p for p in pipes}
        ingress = by_name.get("ingress", pipes[0] if pipes else None)
        egress = by_name.get("egress", pipes[1] if len(pipes) > 1 else None)
        self.ingress = self._pipeline(ingress, clock_us) if ingress else None
        self.egress = self._pipeline(egress, clock_us) if egress else None

    def _build_stateful(self, doc: dict[str, Any], clock_us: Callable[[], float]) -> None:
        """The register, counter and meter arrays the program declares."""
        cg = self.cg
        self.registers = {
            str(r["name"]): RegisterArray(str(r["name"]), int(r["size"]), int(r["bitwidth"]))
            for r in doc.get("register_arrays", [])
        }
        cg.ns["_registers"] = self.registers
        self.counters = {
            str(c["name"]): CounterArray(
                str(c["name"]),
                int(c.get("size", 0)),
                str(c["binding"]) if c.get("is_direct") else None,
            )
            for c in doc.get("counter_arrays", [])
        }
        self.meters: dict[str, MeterArray] = {}
        self.direct_meters: dict[str, dict[str, Any]] = {}
        for m in doc.get("meter_arrays", []):
            name = str(m["name"])
            if m.get("is_direct"):
                self.direct_meters[name] = m
            self.meters[name] = MeterArray(
                name,
                int(m.get("size", 0)),
                m.get("type") == "bytes",
                int(m.get("rate_count", 2)),
                clock_us,
            )

    # -- pipelines -------------------------------------------------------------------------

    def _pipeline(self, pipe: dict[str, Any], clock_us: Callable[[], float]) -> Any:
        cg = self.cg
        for prof in pipe.get("action_profiles", []):
            sel = None
            if prof.get("selector"):
                s = prof["selector"]
                sel = Calculation(
                    cg,
                    {"name": prof["name"], "algo": s["algo"], "input": s.get("input", [])},
                    self.deparser,
                )
                self.calculations.setdefault(str(prof["name"]), sel)
            self.profiles[str(prof["name"])] = ActionProfile(str(prof["name"]), sel)
        nodes: dict[str, str] = {}
        for kind in ("tables", "conditionals", "action_calls"):
            for item in pipe.get(kind, []):
                nodes[str(item["name"])] = cg.fresh("nd_")

        def ref(name: Any) -> str:
            if name is None:
                return "None"
            if str(name) not in nodes:
                raise ProgramError(f"BMv2 JSON: control flow refers to unknown node {name!r}")
            return nodes[str(name)]

        for t in pipe.get("tables", []):
            table = self._table(t, clock_us)
            self.tables[table.name] = table
            cg.ns[nodes[table.name]] = table.apply
            self._pending_next.append((table, t))
        for c in pipe.get("conditionals", []):
            body = [
                f"return {ref(c.get('true_next'))} if {cg.expr(c['expression'])} "
                f"else {ref(c.get('false_next'))}"
            ]
            cg.function(nodes[str(c["name"])], "f, p", body)
        for a in pipe.get("action_calls", []):
            act = cg.const(self._action(a["action_id"]).fn)
            body = [f"if {act}(f, p, ()):", "    return None", f"return {ref(a.get('next_node'))}"]
            cg.function(nodes[str(a["name"])], "f, p", body)
        for table, t in self._pending_next:
            self._link(table, t, ref)
        self._pending_next.clear()
        init = pipe.get("init_table")
        return None if init is None else cg.ns[ref(init)]

    def _action(self, action_id: Any) -> ActionSpec:
        try:
            return self.actions[int(action_id)]
        except KeyError:
            raise ProgramError(f"BMv2 JSON: unknown action id {action_id}") from None

    def _table(self, t: dict[str, Any], clock_us: Callable[[], float]) -> Table:
        cg, layout = self.cg, self.layout
        name = str(t["name"])
        keys, srcs = [], []
        for k in t.get("key", []):
            mt, target = str(k["match_type"]), k["target"]
            if mt == "valid":
                h = layout.header(str(target))
                src, width, kname = f"f[{h.valid}]", 1, str(k.get("name") or f"{target}.$valid$")
            else:
                slot, width, _ = layout.field(str(target[0]), str(target[1]))
                src, kname = f"f[{slot}]", str(k.get("name") or f"{target[0]}.{target[1]}")
                h = layout.header(str(target[0]))
                if not h.metadata and target[1] != "$valid$":  # as BMv2: a field of an
                    src = f"({src} if f[{h.valid}] else 0)"  # invalid header keys as 0
            if k.get("mask") is not None:
                src = f"({src} & {hexint(k['mask'], 'key mask')})"
            tname = str(target) if mt == "valid" else f"{target[0]}.{target[1]}"
            keys.append(KeyField(kname, mt, width, tname))
            srcs.append(src)
        key = f"({''.join(s + ', ' for s in srcs)})"
        keyfn = cg.function(cg.fresh("key_"), "f", [f"return {key}"])
        cg.bodies[keyfn] = (key, *srcs)  # fastmatch computes the key (or its parts) in place
        actions = {self._action(i).name: self._action(i) for i in t.get("action_ids", [])}
        profile = None
        if t.get("type", "simple") in ("indirect", "indirect_ws"):
            profile = self.profiles.get(str(t.get("action_profile")))
            if profile is None:
                raise ProgramError(
                    f"table {name}: unknown action profile {t.get('action_profile')}"
                )
        table = Table(name, keys, keyfn, actions, profile, layout.std["packet_length"])
        table.with_counters = bool(t.get("with_counters"))
        table.clock_us = clock_us
        dm = t.get("direct_meters")
        if dm:
            m = self.direct_meters.get(str(dm))
            if m is None:
                raise ProgramError(f"table {name}: unknown direct meter {dm}")
            table.meter_factory = Meter
            if m.get("result_target"):
                table.meter_slot = layout.field(*map(str, m["result_target"]))[0]
            plen = layout.std["packet_length"]
            by_bytes = m.get("type") == "bytes"
            table.meter_length = (lambda f: f[plen]) if by_bytes else (lambda f: 1)
        de = t.get("default_entry")
        if de is not None and profile is None:
            act = self._action(de["action_id"])
            data = tuple(hexint(x, f"table {name} default") for x in de.get("action_data", []))
            table.default = Entry(-1, (), 0, act, data)
            table.default_const = bool(de.get("action_const"))
            table.default_entry_const = bool(de.get("action_entry_const"))
            table.initial_default = table.default
        for i, ent in enumerate(t.get("entries", [])):
            match = [_const_match(mk, kf) for mk, kf in zip(ent["match_key"], keys)]
            ae = ent["action_entry"]
            data = tuple(hexint(x, f"table {name} entry") for x in ae.get("action_data", []))
            try:
                table.add(match, self._action(ae["action_id"]), data, int(ent.get("priority", i)))
            except CliError as exc:  # as simple_switch, which refuses to load such a JSON
                raise ProgramError(f"table {name}: duplicate entries in table initializer") from exc
        table.immutable = bool(t.get("entries"))
        if "max_size" in t:  # as BMv2, after the const entries
            table.max_size = int(t["max_size"])
        return table

    def _link(self, table: Table, t: dict[str, Any], ref: Callable[[Any], str]) -> None:
        nt = t.get("next_tables", {})
        if "__HIT__" in nt or "__MISS__" in nt:
            table.hit_miss = True
            table.next_hit = self.cg.ns.get(ref(nt.get("__HIT__")))
            table.next_miss = self.cg.ns.get(ref(nt.get("__MISS__")))
            return
        for aname, nxt in nt.items():
            act = table.actions.get(str(aname))
            if act is not None:
                table.next_by_action[act.id] = self.cg.ns.get(ref(nxt))
        base = t.get("base_default_next")
        table.next_miss = self.cg.ns.get(ref(base))  # a miss with no default entry
        if base is not None:
            for act in table.actions.values():
                table.next_by_action.setdefault(act.id, self.cg.ns.get(ref(base)))


def _const_match(mk: dict[str, Any], kf: KeyField) -> Any:
    mt = mk.get("match_type", kf.match_type)
    if mt in ("exact", "valid"):
        key = mk["key"]
        return int(key) if isinstance(key, bool) else hexint(key, "entry key")
    if mt == "lpm":
        return hexint(mk["key"], "entry key"), int(mk["prefix_length"])
    if mt in ("ternary", "optional"):
        mask = hexint(mk["mask"], "entry mask")
        return hexint(mk["key"], "entry key") & mask, mask
    if mt == "range":
        return hexint(mk["start"], "range start"), hexint(mk["end"], "range end")
    raise ProgramError(f"BMv2 JSON: unsupported match type {mt!r} in const entries")
