"""P4Info (P4Runtime pipeline description) in protobuf text format, built from the BMv2 JSON.

The ``p4runtime`` package is not installed, so the text format is written directly. Ids follow
p4c: ``(resource prefix << 24) | (Jenkins one-at-a-time hash of the name & 0xffffff)``, with
linear probing on collisions. Compiler-synthesized tables/actions (``tbl_*``, ``act*``) are
hidden, as in p4c.
"""

from __future__ import annotations

from typing import Any

PREFIX = {
    "action": 0x01, "table": 0x02, "value_set": 0x03, "action_profile": 0x11, "counter": 0x12,
    "direct_counter": 0x13, "meter": 0x14, "direct_meter": 0x15, "register": 0x16, "digest": 0x17,
}  # fmt: skip
UNITS = {"packets": "PACKETS", "bytes": "BYTES", "packets_and_bytes": "BOTH"}
MATCH = {
    "exact": "EXACT",
    "lpm": "LPM",
    "ternary": "TERNARY",
    "range": "RANGE",
    "optional": "OPTIONAL",
}


def jenkins(name: str) -> int:
    """Jenkins one-at-a-time hash (32 bits) of the UTF-8 name."""
    h = 0
    for b in name.encode():
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    return (h + (h << 15)) & 0xFFFFFFFF


class _Ids:
    def __init__(self) -> None:
        self.used: set[int] = set()

    def get(self, kind: str, name: str) -> int:
        low = jenkins(name) & 0xFFFFFF
        while True:
            i = (PREFIX[kind] << 24) | low
            if i not in self.used:
                self.used.add(i)
                return i
            low = (low + 1) & 0xFFFFFF


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _aliases(names: list[str]) -> dict[str, str]:
    """Shortest unique dotted suffix of each name."""
    out = {}
    for n in names:
        parts = n.split(".")
        for k in range(1, len(parts) + 1):
            cand = ".".join(parts[-k:])
            if sum(1 for m in names if m == cand or m.endswith("." + cand)) == 1:
                out[n] = cand
                break
        else:
            out[n] = n
    return out


def _preamble(ind: str, pid: int, name: str, alias: str) -> str:
    return f"{ind}preamble {{\n{ind}  id: {pid}\n{ind}  name: {_q(name)}\n{ind}  alias: {_q(alias)}\n{ind}}}\n"


def _field_width(doc: dict[str, Any], target: list[str]) -> int:
    if target[1] == "$valid$":
        return 1
    inst = next(h for h in doc["headers"] if h["name"] == target[0])
    htype = next(t for t in doc["header_types"] if t["name"] == inst["header_type"])
    return int(next(f[1] for f in htype["fields"] if f[0] == target[1]))


SCOPES = {"defaultonly": "DEFAULT_ONLY", "tableonly": "TABLE_ONLY"}


def p4info_text(
    doc: dict[str, Any],
    counter_units: dict[str, str] | None = None,
    action_scopes: dict[str, dict[str, str]] | None = None,
) -> str:
    """The P4Info message of a compiled program, in protobuf text format.
    ``action_scopes``: table -> action -> ``defaultonly``/``tableonly`` (its annotation)."""
    ids = _Ids()
    tables = [t for p in doc["pipelines"] for t in p["tables"] if not t["name"].startswith("tbl_")]
    profiles = [a for p in doc["pipelines"] for a in p["action_profiles"]]
    used = {a for t in tables for a in t["actions"]}
    # one P4Info action per declaration: an action bound to different out/inout arguments
    # is several BMv2 actions of one name
    first: dict[str, dict[str, Any]] = {}
    for a in doc["actions"]:
        if a["name"] in used:
            first.setdefault(a["name"], a)
    actions = list(first.values())
    objs = (
        tables
        + actions
        + profiles
        + doc["counter_arrays"]
        + doc["meter_arrays"]
        + doc["register_arrays"]
    )
    alias = _aliases([x["name"] for x in objs])
    aid = {a["name"]: ids.get("action", a["name"]) for a in actions}
    tid = {t["name"]: ids.get("table", t["name"]) for t in tables}
    pid = {p["name"]: ids.get("action_profile", p["name"]) for p in profiles}
    cid = {
        c["name"]: ids.get("direct_counter" if c["is_direct"] else "counter", c["name"])
        for c in doc["counter_arrays"]
    }
    mid = {
        m["name"]: ids.get("direct_meter" if m["is_direct"] else "meter", m["name"])
        for m in doc["meter_arrays"]
    }
    direct: dict[str, list[int]] = {}
    for c in doc["counter_arrays"]:
        if c["is_direct"]:
            direct.setdefault(c["binding"], []).append(cid[c["name"]])
    for m in doc["meter_arrays"]:
        if m["is_direct"]:
            direct.setdefault(m["binding"], []).append(mid[m["name"]])
    out = ['pkg_info {\n  arch: "v1model"\n}\n']
    scopes = action_scopes or {}
    out += [
        _table_text(doc, t, tid[t["name"]], alias, aid, pid, direct, scopes.get(t["name"], {}))
        for t in tables
    ]
    out += [_action_text(a, aid[a["name"]], alias) for a in actions]
    out += [_profile_text(p, pid[p["name"]], alias, tables, tid) for p in profiles]
    for c in doc["counter_arrays"]:
        unit = UNITS.get((counter_units or {}).get(c["name"], ""), "BOTH")
        out.append(_counter_or_meter("counters", c, cid[c["name"]], alias, unit, tid))
    for m in doc["meter_arrays"]:
        unit = "BYTES" if m["type"] == "bytes" else "PACKETS"
        out.append(_counter_or_meter("meters", m, mid[m["name"]], alias, unit, tid))
    for r in doc["register_arrays"]:
        s = "registers {\n" + _preamble(
            "  ", ids.get("register", r["name"]), r["name"], alias[r["name"]]
        )
        s += f"  type_spec {{\n    bitstring {{\n      bit {{\n        bitwidth: {r['bitwidth']}\n      }}\n    }}\n  }}\n"
        out.append(s + f"  size: {r['size']}\n}}\n")
    for d in doc["learn_lists"]:
        s = "digests {\n" + _preamble("  ", ids.get("digest", d["name"]), d["name"], d["name"])
        out.append(
            s + f"  type_spec {{\n    struct {{\n      name: {_q(d['name'])}\n    }}\n  }}\n}}\n"
        )
    for v in doc["parse_vsets"]:
        s = "value_sets {\n" + _preamble(
            "  ", ids.get("value_set", v["name"]), v["name"], v["name"].split(".")[-1]
        )
        s += f"  match {{\n    id: 1\n    bitwidth: {v['compressed_bitwidth']}\n    match_type: EXACT\n  }}\n"
        out.append(s + f"  size: {v['max_size']}\n}}\n")
    return "".join(out)


def _counter_or_meter(
    kind: str,
    obj: dict[str, Any],
    oid: int,
    alias: dict[str, str],
    unit: str,
    tid: dict[str, int],
) -> str:
    """A counter or meter array entry, or its ``direct_`` form bound to a table."""
    direct = obj["is_direct"]
    s = (
        f"{'direct_' if direct else ''}{kind} {{\n"
        + _preamble("  ", oid, obj["name"], alias[obj["name"]])
        + f"  spec {{\n    unit: {unit}\n  }}\n"
    )
    s += f"  direct_table_id: {tid[obj['binding']]}\n" if direct else f"  size: {obj['size']}\n"
    return s + "}\n"


def _table_text(
    doc: dict[str, Any],
    t: dict[str, Any],
    tid: int,
    alias: dict[str, str],
    aid: dict[str, int],
    pid: dict[str, int],
    direct: dict[str, list[int]],
    scopes: dict[str, str],
) -> str:
    s = "tables {\n" + _preamble("  ", tid, t["name"], alias[t["name"]])
    for i, k in enumerate(t["key"], 1):
        w = _field_width(doc, k["target"])
        mt = MATCH[k["match_type"]]
        s += f"  match_fields {{\n    id: {i}\n    name: {_q(k['name'])}\n    bitwidth: {w}\n    match_type: {mt}\n  }}\n"
    for a in t["actions"]:
        scope = scopes.get(a)
        extra = f'    annotations: "@{scope}"\n    scope: {SCOPES[scope]}\n' if scope else ""
        s += f"  action_refs {{\n    id: {aid[a]}\n{extra}  }}\n"
    de = t.get("default_entry")
    if de and de.get("action_const"):
        s += f"  const_default_action_id: {aid[t['actions'][t['action_ids'].index(de['action_id'])]]}\n"
    if t.get("action_profile"):
        s += f"  implementation_id: {pid[t['action_profile']]}\n"
    s += "".join(f"  direct_resource_ids: {r}\n" for r in direct.get(t["name"], []))
    s += f"  size: {t['max_size']}\n"
    if t.get("support_timeout"):
        s += "  idle_timeout_behavior: NOTIFY_CONTROL\n"
    if "entries" in t:
        s += "  is_const_table: true\n"
    return s + "}\n"


def _action_text(a: dict[str, Any], aid: int, alias: dict[str, str]) -> str:
    s = "actions {\n" + _preamble("  ", aid, a["name"], alias[a["name"]])
    for i, p in enumerate(a["runtime_data"], 1):
        s += f"  params {{\n    id: {i}\n    name: {_q(p['name'])}\n    bitwidth: {p['bitwidth']}\n  }}\n"
    return s + "}\n"


def _profile_text(
    p: dict[str, Any],
    pid: int,
    alias: dict[str, str],
    tables: list[dict[str, Any]],
    tid: dict[str, int],
) -> str:
    s = "action_profiles {\n" + _preamble("  ", pid, p["name"], alias[p["name"]])
    s += "".join(
        f"  table_ids: {tid[t['name']]}\n" for t in tables if t.get("action_profile") == p["name"]
    )
    if "selector" in p:
        s += "  with_selector: true\n"
    return s + f"  size: {p['max_size']}\n}}\n"
