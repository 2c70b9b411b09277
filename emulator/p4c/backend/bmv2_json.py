"""The BMv2 JSON document: the lowered blocks and the environment's tables, in p4c's order."""

from __future__ import annotations

from typing import Any

from emulator.p4c.frontend.env import Env
from emulator.p4c.frontend.values import primitive_arg

JSON_VERSION = [2, 23]


def assemble(
    env: Env,
    pj: dict[str, Any],
    pipes: list[dict[str, Any]],
    dj: dict[str, Any],
    program: str,
) -> dict[str, Any]:
    """The BMv2 JSON document from the lowered parser, pipelines, deparser and ``env``."""
    total = sum(f[1] for f in env.scalars)
    scalars = list(env.scalars)
    if total % 8:
        scalars.append(["_padding_0", 8 - total % 8, False])
    env.header_types[0]["fields"] = scalars
    user_enums = [
        e
        for e in env.enums.values()
        if e.name not in ("CounterType", "MeterType", "HashAlgorithm", "CloneType")
    ]
    out: dict[str, Any] = {
        "header_types": env.header_types,
        "headers": env.headers,
        "header_stacks": env.header_stacks,
        "header_union_types": env.header_union_types,
        "header_unions": env.header_unions,
        "header_union_stacks": env.header_union_stacks,
        "field_lists": env.out["field_lists"],
        "errors": [[n, c] for n, c in sorted(env.errors.items(), key=lambda x: x[1])],
        "enums": [{"name": e.name, "entries": [[n, v] for n, v in e.members]} for e in user_enums],
        "parsers": [pj],
        "parse_vsets": env.out["parse_vsets"],
        "deparsers": [dj],
        "meter_arrays": env.out["meter_arrays"],
        "counter_arrays": env.out["counter_arrays"],
        "register_arrays": env.out["register_arrays"],
        "calculations": env.out["calculations"],
        "learn_lists": env.out["learn_lists"],
        "actions": env.out["actions"],
        "pipelines": pipes,
        "checksums": env.out["checksums"],
        "force_arith": [],
        "extern_instances": env.out["extern_instances"],
        "field_aliases": env.field_aliases,
        "program": program,
        "__meta__": {"version": JSON_VERSION, "compiler": "fabemu p4c (emulator.p4c)"},
    }
    _wrap_primitive_args(out)
    return out


def _wrap_primitive_args(out: dict[str, Any]) -> None:
    """Expression arguments of primitives and parser ``set``/``extract_VL`` ops in BMv2's
    nesting (a correctness fix: simple_switch refuses the once-wrapped form)."""
    prims = [p for a in out["actions"] for p in a["primitives"]]
    for parser in out["parsers"]:
        for state in parser["parse_states"]:
            for op in state["parser_ops"]:
                if op["op"] in ("set", "extract_VL"):
                    prims.append(op)
                elif op["op"] == "primitive":
                    prims.extend(op["parameters"])
    for p in prims:
        p["parameters"] = [primitive_arg(j) for j in p["parameters"]]
