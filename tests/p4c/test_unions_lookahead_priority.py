"""Header-union stacks, ``lookahead<H>()`` of a header and ``@priority`` on const entries.

The JSON forms are those p4c-bm2-ss 1.2.4.8 writes for the same programs (compared by hand
with its output of p4c's ``issue561-4``/``issue561-6``/``table-entries-priority`` samples);
behaviour is pinned by the corpus STFs (``union_stack``, ``lookahead_header``,
``entry_priority``), also run on simple_switch by the ``bmv2`` differential tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.p4c import CompileError, compile_source
from emulator.target.stf import run_stf

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"


def _compile(name: str, old: str = "", new: str = "") -> dict[str, Any]:
    path = CORPUS / f"{name}.p4"
    text = path.read_text()
    if old:
        assert old in text, old
        text = text.replace(old, new)
    return compile_source(text, str(path))


def _error(name: str, old: str, new: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        _compile(name, old, new)
    return info.value


def _walk(x: Any) -> list[dict[str, Any]]:
    out = []
    if isinstance(x, dict):
        out.append(x)
        for v in x.values():
            out.extend(_walk(v))
    elif isinstance(x, list):
        for v in x:
            out.extend(_walk(v))
    return out


def test_union_stack_json_is_p4c_form() -> None:
    doc = _compile("union_stack")
    assert doc["header_union_stacks"] == [
        {"name": "u", "id": 0, "union_type": "ab_t", "size": 2, "header_union_ids": [0, 1]}
    ]
    ids = {h["name"]: h["id"] for h in doc["headers"]}
    assert [(u["name"], u["header_ids"]) for u in doc["header_unions"]] == [
        ("u[0]", [ids["u[0].a"], ids["u[0].b"]]),
        ("u[1]", [ids["u[1].a"], ids["u[1].b"]]),
    ]
    assert doc["header_union_types"] == [
        {"name": "ab_t", "id": 0, "headers": [["a", "a_t"], ["b", "b_t"]]}
    ]
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    targets = [op["parameters"][0] for op in states["by_next"]["parser_ops"]]
    assert targets == [
        {"type": "union_stack", "value": ["u", "b"]},
        {"type": "union_stack", "value": ["u", "a"]},
    ]
    by_index = [op["parameters"][0] for op in states["by_index"]["parser_ops"]]
    assert by_index == [
        {"type": "regular", "value": "u[0].a"},
        {"type": "regular", "value": "u[1].b"},
    ]
    assert doc["deparsers"][0]["order"][-4:] == ["u[0].a", "u[0].b", "u[1].a", "u[1].b"]


def test_union_stack_element_valid_and_pop() -> None:
    """``u[1].isValid()`` reads the whole union (a ``header_union`` operand, which
    simple_switch loads, unlike p4c's ``header`` one); ``pop_front`` pops the union stack."""
    doc = _compile(
        "union_stack",
        "        hdr.sel.info = bits;\n",
        "        if (hdr.u[1].isValid()) { bits = bits | 0x10; }\n"
        "        hdr.sel.info = bits;\n        hdr.u.pop_front(1);\n",
    )
    nodes = _walk(doc["pipelines"])
    assert {"type": "header_union", "value": "u[1]"} in [
        n.get("right") for n in nodes if n.get("op") == "valid_union"
    ]
    pops = [n for n in _walk(doc["actions"]) if n.get("op") == "pop"]
    assert [p["parameters"][0] for p in pops] == [{"type": "header_union_stack", "value": "u"}]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("hdr.u[0].a.isValid()) { bits = bits | 0x01", "hdr.u[hdr.sel.tag].a.isValid()) { bits = bits | 0x01",
         "a header union stack can only be indexed by a constant"),
        ("hdr.u[0].a.isValid()) { bits = bits | 0x01", "hdr.u.last.a.isValid()) { bits = bits | 0x01",
         "'last' of a header union stack is not supported (size, next, [constant] are)"),
        ("pkt.extract(hdr.u.next.b)", "pkt.extract(hdr.u.next.c)", "header_union ab_t has no member 'c'"),
        ("pkt.extract(hdr.u.next.b)", "pkt.extract(hdr.u.next)",
         "extract needs a header, stack.next or stack.next.member"),
        ("hdr.u[0].a.setValid()", "hdr.u.next.a.setValid()",
         "'.next' of a stack is only an extract target, not 'setValid'"),
    ],
)  # fmt: skip
def test_union_stack_refusals_are_positioned(old: str, new: str, message: str) -> None:
    err = _error("union_stack", old, new)
    assert err.message == message
    line = (CORPUS / "union_stack.p4").read_text().split("\n")
    assert old.split("(")[0].strip() in line[err.pos.line - 1] or old in line[err.pos.line - 1]


def test_lookahead_header_reads_once_into_a_temporary() -> None:
    doc = _compile("lookahead_header")
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    sets = [op for op in states["parse_opts"]["parser_ops"] if op["op"] == "set"]
    looks = [op["parameters"][1] for op in sets if op["parameters"][1]["type"] == "lookahead"]
    assert looks == [{"type": "lookahead", "value": [0, 16]}] * 3  # copy, delta, length
    assert any(n.get("op") == "two_comp_mod" for n in _walk(sets))


def test_lookahead_header_with_varbit_is_refused() -> None:
    err = _error("lookahead_header", "pkt.lookahead<peek_t>().ver", "pkt.lookahead<opts_t>().ver")
    assert err.message == "lookahead of header opts_t: only bit<W>/int<W> fields are supported"
    text = (CORPUS / "lookahead_header.p4").read_text().split("\n")
    assert "transition select(pkt.lookahead<peek_t>().ver)" in text[err.pos.line - 1]


def test_priority_annotations_give_entry_priorities() -> None:
    doc = _compile("entry_priority")
    (table,) = [t for t in doc["pipelines"][0]["tables"] if t["name"].endswith("by_key")]
    assert [e["priority"] for e in table["entries"]] == [30, 2, 1, 10]
    assert run_stf(doc, CORPUS / "entry_priority.stf").passed


@pytest.mark.parametrize("bad", ["@priority(x)", "@priority(1, 2)", "@priority"])
def test_bad_priority_annotation_is_positioned(bad: str) -> None:
    err = _error("entry_priority", "@priority(1)", bad)
    assert err.message == "@priority needs one integer, e.g. @priority(3)"
    text = (CORPUS / "entry_priority.p4").read_text().split("\n")
    assert "set_port(3)" in text[err.pos.line - 1]
