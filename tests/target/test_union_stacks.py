"""Header-union stacks and varbit stack members, in the JSON forms p4c-bm2-ss emits: extract
into ``union_stack`` targets, ``push``/``pop`` of a ``header_union_stack``, a select on an
expression key (the last stack index) and ``extract_VL`` into a stack."""

from __future__ import annotations

import pytest

from emulator.target.errors import ProgramError
from emulator.target.switch import Switch

from .bmv2json import Program, assign, fld, hexv, prim
from .fakes import FifoTM

SM = "standard_metadata"
LAST_TAG = {"type": "expression", "value": {"op": "last_stack_index", "left": None,
            "right": {"type": "header_stack", "value": "tags"}}}  # fmt: skip


def union_stack_program(*prims):
    """tags[2] (1 byte: which member follows) and us[2] of unions {one: 8 bits, two: 16 bits}."""
    p = Program()
    for i in range(2):
        p.header(f"tags[{i}]", [("kind", 8)], type_name="tag_t")
    for i in range(2):
        p.header(f"us[{i}].one", [("v", 8)], type_name="one_t")
        p.header(f"us[{i}].two", [("v", 16)], type_name="two_t")
    p.stack("tags", ["tags[0]", "tags[1]"])
    doc = p.doc
    doc["header_union_types"].append(
        {"name": "u_t", "id": 0, "headers": [["one", "one_t"], ["two", "two_t"]]}
    )
    doc["header_unions"] += [
        {"name": f"us[{i}]", "id": i, "union_type": "u_t", "header_ids": [4 + 2 * i, 5 + 2 * i]}
        for i in range(2)
    ]
    doc["header_union_stacks"].append({"name": "us", "id": 0, "union_type": "u_t", "size": 2,
                                       "header_union_ids": [0, 1]})  # fmt: skip
    tag = [{"type": "stack_field", "value": ["tags", "kind"]}]
    p.state("start", [prim("extract", {"type": "stack", "value": "tags"})], tag,
            [("0x01", None, "one"), ("0x02", None, "two"), (None, None, None)])  # fmt: skip
    for member in ("one", "two"):
        p.state(member, [prim("extract", {"type": "union_stack", "value": ["us", member]})],
                [LAST_TAG], [("0x00000001", None, None), (None, None, "start")])  # fmt: skip
    a = p.action("act", [], [assign(fld(SM, "egress_spec"), hexv(1)), *prims])
    p.table(0, "t", [], [a], a)
    doc["deparsers"][0]["order"] = ["us[0].one", "us[0].two", "us[1].one", "us[1].two"]
    return doc


def run(doc, frame):
    [(_, out)] = Switch(doc, tm=FifoTM(lambda: 0)).process(0, frame)
    return out


def test_extract_into_the_next_element_member_chosen_at_run_time():
    doc = union_stack_program()
    assert run(doc, bytes.fromhex("01aa021234ff")) == bytes.fromhex("aa1234ff")
    assert run(doc, bytes.fromhex("0212340199")) == bytes.fromhex("123499")


def test_push_and_pop_rotate_whole_elements_as_simple_switch():
    """simple_switch 1.15.5 rotates a union stack's elements (measured: pop_front(1) of
    [one=aa, two=bbbb, one=cc] emits bbbb cc aa); nothing is invalidated."""
    pop = prim("pop", {"type": "header_union_stack", "value": "us"}, hexv(1))
    assert run(union_stack_program(pop), bytes.fromhex("01aa021234")) == bytes.fromhex("1234aa")
    push = prim("push", {"type": "header_union_stack", "value": "us"}, hexv(1))
    assert run(union_stack_program(push), bytes.fromhex("01aa021234")) == bytes.fromhex("1234aa")
    one = bytes.fromhex("01aa0301")  # only element 0 extracted: element 1 stays invalid
    assert run(union_stack_program(push), one) == bytes.fromhex("aa01")
    assert run(union_stack_program(pop), one) == bytes.fromhex("aa01")


def test_a_full_union_stack_is_stack_out_of_bounds():
    doc = union_stack_program(assign(fld(SM, "egress_spec"), fld(SM, "parser_error")))
    doc["parsers"][0]["parse_states"][1]["transitions"] = [
        {"type": "default", "value": None, "mask": None, "next_state": "start"}
    ]  # never stops after two elements: a third tag and member overflow the stacks
    sw = Switch(doc, tm=FifoTM(lambda: 0))
    [(port, _)] = sw.process(0, bytes.fromhex("01aa01bb01cc"))
    assert port == 3  # StackOutOfBounds, recorded in parser_error and sent out as the port


def test_unknown_union_stack_member_is_refused():
    doc = union_stack_program()
    doc["parsers"][0]["parse_states"][1]["parser_ops"][0]["parameters"][0]["value"][1] = "three"
    with pytest.raises(ProgramError, match="no member three"):
        Switch(doc)


def test_extract_vl_into_a_header_stack():
    p = Program()
    for i in range(2):
        p.header(f"v[{i}]", [("len", 8), ("data", "*")], type_name="v_t")
    p.doc["header_types"][-1]["max_length"] = 5
    p.stack("v", ["v[0]", "v[1]"])
    length = {"type": "expression", "value": {"type": "hexstr", "value": "0x00000010"}}
    ops = [prim("extract_VL", {"type": "stack", "value": "v"}, length) for _ in range(2)]
    p.state("start", ops)
    a = p.action("act", [], [assign(fld(SM, "egress_spec"), hexv(1))])
    p.table(0, "t", [], [a], a)
    assert run(p.doc, bytes.fromhex("01aaaa02bbbbcc")) == bytes.fromhex("01aaaa02bbbbcc")


def test_assign_union_stack_copies_every_element_and_the_next_index():
    doc = union_stack_program()
    for i in range(2):  # a second union stack "vs" of the same type, never parsed
        doc["headers"] += [
            {"name": f"vs[{i}].one", "id": 8 + 2 * i, "header_type": "one_t", "metadata": False},
            {"name": f"vs[{i}].two", "id": 9 + 2 * i, "header_type": "two_t", "metadata": False},
        ]
        doc["header_unions"].append(
            {
                "name": f"vs[{i}]",
                "id": 2 + i,
                "union_type": "u_t",
                "header_ids": [8 + 2 * i, 9 + 2 * i],
            }
        )
    doc["header_union_stacks"].append(
        {"name": "vs", "id": 1, "union_type": "u_t", "size": 2, "header_union_ids": [2, 3]}
    )
    doc["deparsers"][0]["order"] = ["vs[0].one", "vs[0].two", "vs[1].one", "vs[1].two"]
    us = {"type": "header_union_stack", "value": "us"}
    vs = {"type": "header_union_stack", "value": "vs"}
    act = doc["actions"][0]["primitives"]
    size_vs = {"type": "expression", "value": {"op": "size_stack", "left": None, "right": vs}}
    act.append(prim("assign_union_stack", vs, us))
    act.append(assign(fld(SM, "egress_spec"), size_vs))  # 2: the next index came along
    act.append(prim("pop", vs, hexv(1)))  # element 1 (the two) moves down, 0 goes round
    [(port, out)] = Switch(doc, tm=FifoTM(lambda: 0)).process(0, bytes.fromhex("01aa021234"))
    assert (port, out) == (2, bytes.fromhex("1234aa"))
