"""Header stacks (push/pop, run-time indices, .last), unions and casts in actions."""

from __future__ import annotations

from emulator.target.switch import Switch

from .bmv2json import Program, assign, ex, fld, hexv, prim
from .fakes import FifoTM

SM = "standard_metadata"


def stack_program(*prims):
    p = Program(scalars=[("idx", 8), ("out", 8)])
    p.header("eth", [("etype", 16)])
    for i in range(3):
        p.header(f"tags[{i}]", [("v", 8)], type_name="tag_t")
    p.stack("tags", ["tags[0]", "tags[1]", "tags[2]"])
    p.state("start", [prim("extract", {"type": "regular", "value": "eth"})], [fld("eth", "etype")],
            [("0x0001", None, "tag"), (None, None, None)])  # fmt: skip
    p.state("tag", [prim("extract", {"type": "stack", "value": "tags"})],
            [{"type": "stack_field", "value": ["tags", "v"]}],
            [("0x00", "0x80", "tag"), (None, None, None)])  # fmt: skip
    a = p.action("act", [], [assign(fld(SM, "egress_spec"), hexv(1)), *prims])
    p.table(0, "t", [], [a], a)
    return p.doc


def run(doc, frame):
    [(_, out)] = Switch(doc, tm=FifoTM(lambda: 0)).process(0, frame)
    return out


TAGS = b"\x00\x01" + b"\x01\x02\x83"  # three tags, the last has the stop bit
STACK = {"type": "header_stack", "value": "tags"}


def deref(index):
    return {"type": "expression", "value": {"op": "dereference_header_stack",
                                            "left": STACK, "right": index}}  # fmt: skip


def access(index, offset=0):
    return {"type": "expression", "value": {"op": "access_field", "left": deref(index),
                                            "right": offset}}  # fmt: skip


def test_stack_pop_and_push():
    assert run(stack_program(prim("pop", STACK, hexv(1))), TAGS) == b"\x00\x01\x02\x83"
    doc = stack_program(prim("pop", STACK, hexv(2)), prim("push", STACK, hexv(1)),
                        prim("add_header", {"type": "header", "value": "tags[0]"}),
                        assign(fld("tags[0]", "v"), hexv(0x42)))  # fmt: skip
    assert run(doc, TAGS) == b"\x00\x01\x42\x83"


def test_runtime_index_last_and_size():
    doc = stack_program(
        assign(fld("scalars", "idx"), hexv(1)),
        assign(access(fld("scalars", "idx")), hexv(0x99)),
        assign(fld("eth", "etype"), ex("|", ex("<<", {"type": "stack_field",
                                                      "value": ["tags", "v"]}, hexv(8)),
                                       {"type": "expression", "value": {
                                           "op": "size_stack", "left": None, "right": STACK}})),
    )  # fmt: skip
    assert run(doc, TAGS) == b"\x83\x03" + b"\x01\x99\x83"


def test_out_of_range_stack_index_drops_the_packet_not_the_switch():
    doc = stack_program(assign(access(hexv(7)), hexv(1)))
    sw = Switch(doc, tm=FifoTM(lambda: 0))
    assert sw.process(0, TAGS) == []
    assert sw.stats["errors"] == 1


def test_saturating_casts_and_shifts():
    sat = {"type": "expression", "value": {"op": "usat_cast",
                                           "left": ex("+", fld("eth", "etype"), hexv(0x20000)),
                                           "right": hexv(16)}}  # fmt: skip
    doc = stack_program(assign(fld("eth", "etype"), sat))
    assert run(doc, b"\x00\x05")[:2] == b"\xff\xff"
    neg = {"type": "expression", "value": {"op": "sat_cast", "left": hexv(-300),
                                           "right": hexv(8)}}  # fmt: skip
    doc = stack_program(assign(fld("scalars", "out"), neg),
                        assign(fld("eth", "etype"), fld("scalars", "out")))  # fmt: skip
    assert run(doc, b"\x00\x05")[:2] == b"\x00\x80"  # -128 as 8 bits
    doc = stack_program(prim("shift_left", fld("eth", "etype"), fld("eth", "etype"), hexv(4)))
    assert run(doc, b"\x12\x34")[:2] == b"\x23\x40"


def test_header_union_member_valid_invalidates_sibling():
    p = Program()
    p.header("a", [("x", 8)])
    p.header("b", [("y", 16)])
    p.doc["header_union_types"].append(
        {"name": "u_t", "id": 0, "headers": [["a", "a_t"], ["b", "b_t"]]}
    )
    p.doc["header_unions"].append({"name": "u", "id": 0, "union_type": "u_t",
                                   "header_ids": [2, 3]})  # fmt: skip
    p.state("start", [prim("extract", {"type": "regular", "value": "a"})])
    valid_u = {
        "type": "expression",
        "value": {
            "op": "valid_union",
            "left": None,
            "right": {"type": "header_union", "value": "u"},
        },
    }
    a = p.action("act", [], [
        assign(fld(SM, "egress_spec"), hexv(1)),
        prim("add_header", {"type": "header", "value": "b"}),
        assign(fld("b", "y"), ex("b2d", None, valid_u)),
    ])  # fmt: skip
    p.table(0, "t", [], [a], a)
    [(_, out)] = Switch(p.doc, tm=FifoTM(lambda: 0)).process(0, b"\x07rest")
    assert out == b"\x00\x01rest"  # a invalidated by b.setValid(); union still valid


def _wrapped(operand, times=1):
    """``operand`` inside ``times`` expression nodes without an operator (as p4c emits)."""
    for _ in range(times):
        operand = {"type": "expression", "value": operand}
    return operand


def test_expression_nodes_wrapping_a_plain_operand():
    """p4c-bm2-ss wraps plain fields and header references in ``expression`` nodes."""
    doc = stack_program(
        assign(fld("scalars", "idx"), _wrapped(fld("tags[1]", "v"), 2)),
        assign(fld("tags[0]", "v"), ex("+", _wrapped(fld("scalars", "idx")), hexv(1))),
        prim("remove_header", _wrapped({"type": "header", "value": "tags[2]"})),
    )
    assert run(doc, TAGS) == b"\x00\x01\x03\x02"


def test_header_valued_conditional():
    """``assign_header`` from ``c ? h1 : h2`` (p4c-bm2-ss emits it for header ``?:``)."""

    def mux(idx):
        pick = {"op": "?", "left": {"type": "header", "value": "tags[1]"},
                "right": {"type": "header", "value": "tags[2]"},
                "cond": ex("==", fld("scalars", "idx"), hexv(0))}  # fmt: skip
        return stack_program(
            assign(fld("scalars", "idx"), hexv(idx)),
            prim("assign_header", {"type": "header", "value": "tags[0]"}, _wrapped(pick, 2)),
        )

    assert run(mux(0), TAGS) == b"\x00\x01\x02\x02\x83"
    assert run(mux(1), TAGS) == b"\x00\x01\x83\x02\x83"
