"""A tiny builder for hand-written BMv2 JSON test programs (v1model layout, as p4c emits)."""

from __future__ import annotations

from typing import Any

STD_FIELDS = [
    ("ingress_port", 9), ("egress_spec", 9), ("egress_port", 9), ("instance_type", 32),
    ("packet_length", 32), ("enq_timestamp", 32), ("enq_qdepth", 19), ("deq_timedelta", 32),
    ("deq_qdepth", 19), ("ingress_global_timestamp", 48), ("egress_global_timestamp", 48),
    ("mcast_grp", 16), ("egress_rid", 16), ("checksum_error", 1), ("parser_error", 32),
    ("priority", 3), ("_padding", 3),
]  # fmt: skip

ETH = [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)]
IPV4 = [
    ("version", 4), ("ihl", 4), ("diffserv", 8), ("totalLen", 16), ("identification", 16),
    ("flags", 3), ("fragOffset", 13), ("ttl", 8), ("protocol", 8), ("hdrChecksum", 16),
    ("srcAddr", 32), ("dstAddr", 32),
]  # fmt: skip
UDP = [("srcPort", 16), ("dstPort", 16), ("length_", 16), ("checksum", 16)]


def fld(h: str, f: str) -> dict[str, Any]:
    return {"type": "field", "value": [h, f]}


def hexv(v: int) -> dict[str, Any]:
    return {"type": "hexstr", "value": hex(v) if v >= 0 else "-" + hex(-v)}


def rd(i: int) -> dict[str, Any]:
    return {"type": "runtime_data", "value": i}


def hdr(name: str) -> dict[str, Any]:
    return {"type": "header", "value": name}


def ex(op: str, left: Any, right: Any) -> dict[str, Any]:
    return {"type": "expression", "value": {"op": op, "left": left, "right": right}}


def prim(op: str, *params: Any) -> dict[str, Any]:
    """A primitive call; an operator argument is wrapped twice, as BMv2 reads it."""
    return {"op": op, "parameters": [_arg(p) for p in params]}


def _arg(p: Any) -> Any:
    if isinstance(p, dict) and p.get("type") == "expression" and "op" in p["value"]:
        return {"type": "expression", "value": p}
    return p


def assign(dst: dict[str, Any], src: dict[str, Any]) -> dict[str, Any]:
    return prim("assign", dst, src)


def masked(e: dict[str, Any], width: int) -> dict[str, Any]:
    return ex("&", e, hexv((1 << width) - 1))


class Program:
    """Accumulates a BMv2 JSON document."""

    def __init__(self, scalars: list[tuple[str, int]] | None = None) -> None:
        self.doc: dict[str, Any] = {
            "__meta__": {"version": [2, 23], "compiler": "fabemu tests (hand-written)"},
            "header_types": [], "headers": [], "header_stacks": [], "header_union_types": [],
            "header_unions": [], "header_union_stacks": [], "field_lists": [],
            "errors": [["NoError", 0], ["PacketTooShort", 1], ["NoMatch", 2],
                       ["StackOutOfBounds", 3], ["HeaderTooShort", 4], ["ParserTimeout", 5],
                       ["ParserInvalidArgument", 6]],
            "enums": [], "parsers": [{"name": "parser", "id": 0, "init_state": "start",
                                      "parse_states": []}],
            "parse_vsets": [], "deparsers": [{"name": "deparser", "id": 0, "order": []}],
            "meter_arrays": [], "counter_arrays": [], "register_arrays": [], "calculations": [],
            "learn_lists": [], "actions": [],
            "pipelines": [
                {"name": "ingress", "id": 0, "init_table": None, "action_profiles": [],
                 "tables": [], "action_calls": [], "conditionals": []},
                {"name": "egress", "id": 1, "init_table": None, "action_profiles": [],
                 "tables": [], "action_calls": [], "conditionals": []},
            ],
            "checksums": [], "force_arith": [], "extern_instances": [],
            "field_aliases": [[f"{ns}.{f}", ["standard_metadata", f]] for ns, f in (
                ("queueing_metadata", "enq_timestamp"), ("queueing_metadata", "enq_qdepth"),
                ("queueing_metadata", "deq_timedelta"), ("queueing_metadata", "deq_qdepth"),
                ("intrinsic_metadata", "ingress_global_timestamp"),
                ("intrinsic_metadata", "egress_global_timestamp"),
                ("intrinsic_metadata", "mcast_grp"), ("intrinsic_metadata", "egress_rid"),
                ("intrinsic_metadata", "priority"))],
        }  # fmt: skip
        self.header("scalars", scalars or [("tmp", 32)], metadata=True)
        self.header("standard_metadata", STD_FIELDS, metadata=True)
        self._ids = {"table": 0, "cond": 0, "calc": 0, "checksum": 0}

    def header(
        self,
        name: str,
        fields: list[tuple[str, int]],
        metadata: bool = False,
        type_name: str | None = None,
    ) -> None:
        tname = type_name or f"{name}_t"
        if not any(t["name"] == tname for t in self.doc["header_types"]):
            self.doc["header_types"].append(
                {
                    "name": tname,
                    "id": len(self.doc["header_types"]),
                    "fields": [[f, w, False] for f, w in fields],
                }
            )
        self.doc["headers"].append(
            {
                "name": name,
                "id": len(self.doc["headers"]),
                "header_type": tname,
                "metadata": metadata,
                "pi_omit": True,
            }
        )
        if not metadata:
            self.doc["deparsers"][0]["order"].append(name)

    def stack(self, name: str, members: list[str]) -> None:
        hdrs = [h for m in members for h in self.doc["headers"] if h["name"] == m]
        self.doc["header_stacks"].append(
            {
                "name": name,
                "id": len(self.doc["header_stacks"]),
                "header_type": hdrs[0]["header_type"],
                "size": len(hdrs),
                "header_ids": [h["id"] for h in hdrs],
            }
        )

    def state(
        self,
        name: str,
        ops: list[Any],
        key: list[Any] | None = None,
        transitions: list[tuple[str | None, Any, Any]] | None = None,
    ) -> None:
        trans = []
        for value, mask, nxt in transitions or [(None, None, None)]:
            trans.append(
                {
                    "type": "default" if value is None else "hexstr",
                    "value": value,
                    "mask": mask,
                    "next_state": nxt,
                }
            )
        self.doc["parsers"][0]["parse_states"].append(
            {
                "name": name,
                "id": len(self.doc["parsers"][0]["parse_states"]),
                "parser_ops": ops,
                "transition_key": key or [],
                "transitions": trans,
            }
        )

    def action(self, name: str, params: list[tuple[str, int]], prims: list[Any]) -> int:
        aid = len(self.doc["actions"])
        self.doc["actions"].append(
            {
                "name": name,
                "id": aid,
                "runtime_data": [{"name": n, "bitwidth": w} for n, w in params],
                "primitives": prims,
            }
        )
        return aid

    def table(
        self,
        pipe: int,
        name: str,
        keys: list[tuple[str, Any, int | None]],
        actions: list[int],
        default: int,
        next_tables: dict[str, Any] | None = None,
        base_next: str | None = None,
        **extra: Any,
    ) -> None:
        names = [self.doc["actions"][a]["name"] for a in actions]
        kinds = {k[0] for k in keys}
        mt = (
            "range"
            if "range" in kinds
            else "ternary"
            if kinds & {"ternary", "optional"}
            else "lpm"
            if "lpm" in kinds
            else "exact"
        )
        t = {
            "name": name,
            "id": self._next("table"),
            "key": [
                {
                    "match_type": k,
                    "name": (".".join(tg) if isinstance(tg, list) else tg),
                    "target": tg,
                    "mask": None if m is None else hex(m),
                }
                for k, tg, m in keys
            ],
            "match_type": mt,
            "type": "simple",
            "max_size": 1024,
            "with_counters": False,
            "support_timeout": False,
            "direct_meters": None,
            "action_ids": actions,
            "actions": names,
            "base_default_next": base_next,
            "next_tables": next_tables
            if next_tables is not None
            else {n: base_next for n in names},
            "default_entry": {
                "action_id": default,
                "action_const": False,
                "action_data": [],
                "action_entry_const": False,
            },
        }
        t.update(extra)
        if t["type"] != "simple":  # BMv2 takes no JSON default entry for indirect tables
            del t["default_entry"]
        self.doc["pipelines"][pipe]["tables"].append(t)
        if self.doc["pipelines"][pipe]["init_table"] is None:
            self.doc["pipelines"][pipe]["init_table"] = name

    def cond(
        self,
        pipe: int,
        name: str,
        expr: Any,
        true_next: str | None,
        false_next: str | None,
        init: bool = False,
    ) -> None:
        self.doc["pipelines"][pipe]["conditionals"].append(
            {
                "name": name,
                "id": self._next("cond"),
                "expression": expr,
                "true_next": true_next,
                "false_next": false_next,
            }
        )
        if init:
            self.doc["pipelines"][pipe]["init_table"] = name

    def calc(self, name: str, algo: str, inputs: list[Any]) -> None:
        self.doc["calculations"].append(
            {"name": name, "id": self._next("calc"), "algo": algo, "input": inputs}
        )

    def ipv4_checksum(self, name: str, calc: str, *, verify: bool, update: bool) -> None:
        """Add calculation ``calc`` (csum16 over ipv4 minus hdrChecksum) and a checksum on it."""
        self.calc(calc, "csum16", [fld("ipv4", n) for n, _ in IPV4 if n != "hdrChecksum"])
        self.doc["checksums"].append(
            {
                "name": name,
                "id": self._next("checksum"),
                "target": ["ipv4", "hdrChecksum"],
                "type": "generic",
                "calculation": calc,
                "verify": verify,
                "update": update,
                "if_cond": ex("d2b", None, fld("ipv4", "$valid$")),
            }
        )

    def _next(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind] - 1


def eth_ipv4_udp(prog: Program) -> None:
    """Add ethernet/ipv4/udp headers and the usual parser for them."""
    prog.header("ethernet", ETH)
    prog.header("ipv4", IPV4)
    prog.header("udp", UDP)
    prog.state(
        "start",
        [prim("extract", {"type": "regular", "value": "ethernet"})],
        [fld("ethernet", "etherType")],
        [("0x0800", None, "parse_ipv4"), (None, None, None)],
    )
    prog.state(
        "parse_ipv4",
        [prim("extract", {"type": "regular", "value": "ipv4"})],
        [fld("ipv4", "protocol")],
        [("0x11", None, "parse_udp"), (None, None, None)],
    )
    prog.state("parse_udp", [prim("extract", {"type": "regular", "value": "udp"})])


def l3_ecmp_program() -> dict[str, Any]:
    """The reference L3 program: LPM routes into an ECMP action selector (crc16, 5-tuple)."""
    p = Program()
    eth_ipv4_udp(p)
    drop = p.action("MyIngress.drop", [], [prim("mark_to_drop", hdr("standard_metadata"))])
    nhop = p.action(
        "MyIngress.set_nhop",
        [("dmac", 48), ("port", 9)],
        [
            assign(fld("ethernet", "srcAddr"), fld("ethernet", "dstAddr")),
            assign(fld("ethernet", "dstAddr"), rd(0)),
            assign(fld("standard_metadata", "egress_spec"), rd(1)),
            assign(fld("ipv4", "ttl"), masked(ex("+", fld("ipv4", "ttl"), hexv(0xFF)), 8)),
        ],
    )
    p.cond(0, "node_2", ex("d2b", None, fld("ipv4", "$valid$")), "MyIngress.ecmp", None, init=True)
    p.table(
        0,
        "MyIngress.ecmp",
        [("lpm", ["ipv4", "dstAddr"], None)],
        [nhop, drop],
        drop,
        type="indirect_ws",
        action_profile="MyIngress.ecmp_sel",
    )
    p.doc["pipelines"][0]["action_profiles"].append(
        {
            "name": "MyIngress.ecmp_sel",
            "id": 0,
            "max_size": 1024,
            "selector": {
                "algo": "crc16",
                "input": [
                    fld("ipv4", "srcAddr"),
                    fld("ipv4", "dstAddr"),
                    fld("ipv4", "protocol"),
                    fld("udp", "srcPort"),
                    fld("udp", "dstPort"),
                ],
            },
        }
    )
    p.ipv4_checksum("cksum", "calc", verify=False, update=True)
    return p.doc
