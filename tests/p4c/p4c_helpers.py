"""Shared helpers for the compiler tests: compile test programs, find JSON objects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from emulator.p4c import compile_file, compile_source

PROGRAMS = Path(__file__).resolve().parent / "programs"

TEMPLATE = """#include "common.p4"
SIMPLE_PARSER
EMPTY_CONTROLS
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
%s
    apply {
%s
    }
}
EMPTY_EGRESS
SIMPLE_DEPARSER
MAIN
"""


def compile_prog(name: str) -> dict[str, Any]:
    """Compile ``tests/p4c/programs/<name>.p4``."""
    return compile_file(PROGRAMS / f"{name}.p4")


def ingress_program(body: str, decls: str = "") -> str:
    """A full v1model program whose ingress has ``decls`` and apply ``body``.

    The body starts on line 7 of the generated text (decls on line 5).
    """
    return TEMPLATE % (decls, body)


def compile_ingress(body: str, decls: str = "") -> dict[str, Any]:
    return compile_source(ingress_program(body, decls), str(PROGRAMS / "inline.p4"))


def by_name(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    for it in items:
        if it["name"] == name:
            return it
    raise AssertionError(f"{name} not in {[i['name'] for i in items]}")


def table(doc: dict[str, Any], name: str) -> dict[str, Any]:
    for p in doc["pipelines"]:
        for t in p["tables"]:
            if t["name"] == name:
                return t
    raise AssertionError(f"no table {name}")


def all_primitives(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for a in doc["actions"] for p in a["primitives"]]


def assigned_to(body: str, field: dict[str, Any], decls: str = "") -> dict[str, Any]:
    """What the (one) assignment to ``field`` in an ingress ``body`` assigns (JSON)."""
    doc = compile_source(ingress_program(body, decls), str(PROGRAMS / "inline.p4"))
    (src,) = [p["parameters"][1] for p in all_primitives(doc) if p["parameters"][:1] == [field]]
    return src
