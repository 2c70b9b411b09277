"""Focused compile tests: the JSON structure of each construct matches p4c-bm2-ss conventions."""

from __future__ import annotations

import json

import pytest

from emulator.p4c import CompileError

from .p4c_helpers import all_primitives, by_name, compile_ingress, compile_prog, table


def test_lpm_table_and_action_data() -> None:
    doc = compile_prog("lpm_router")
    t = table(doc, "MyIngress.routes")
    assert t["match_type"] == "lpm"
    assert t["key"] == [
        {
            "match_type": "lpm",
            "name": "hdr.ipv4.dstAddr",
            "target": ["ipv4", "dstAddr"],
            "mask": None,
        }
    ]
    assert t["max_size"] == 512
    assert t["actions"] == ["MyIngress.forward", "MyIngress.drop"]
    fwd = by_name(doc["actions"], "MyIngress.forward")
    assert fwd["runtime_data"] == [
        {"name": "dmac", "bitwidth": 48},
        {"name": "port", "bitwidth": 9},
    ]
    assert fwd["primitives"][0]["parameters"] == [
        {"type": "field", "value": ["ethernet", "dstAddr"]},
        {"type": "runtime_data", "value": 0},
    ]
    drop = by_name(doc["actions"], "MyIngress.drop")
    assert t["default_entry"] == {
        "action_id": drop["id"],
        "action_const": True,
        "action_data": [],
        "action_entry_const": True,
    }
    assert drop["primitives"][0]["op"] == "mark_to_drop"
    # ttl - 1 wraps at 8 bits; an expression argument is wrapped twice, as BMv2 reads it
    arg = fwd["primitives"][2]["parameters"][1]
    assert arg["type"] == "expression" and arg["value"]["type"] == "expression"
    ttl = arg["value"]["value"]
    assert ttl["op"] == "&" and ttl["right"]["value"] == "0xff"
    # the if becomes a conditional on the validity bit, whose true branch is the table
    cond = doc["pipelines"][0]["conditionals"][0]
    assert cond["expression"]["value"] == {
        "op": "d2b",
        "left": None,
        "right": {"type": "field", "value": ["ipv4", "$valid$"]},
    }
    assert cond["true_next"] == "MyIngress.routes" and cond["false_next"] is None
    assert doc["pipelines"][0]["init_table"] == cond["name"]
    json.dumps(doc)


def test_header_layout_and_metadata() -> None:
    doc = compile_prog("lpm_router")
    names = [h["name"] for h in doc["headers"]]
    assert names[:2] == ["scalars", "standard_metadata"]
    assert {"ethernet", "ipv4", "tcp", "vlan[0]", "vlan[1]"} <= set(names)
    std = by_name(doc["header_types"], "standard_metadata")
    assert ["egress_spec", 9, False] in std["fields"]
    assert sum(f[1] for f in std["fields"]) % 8 == 0
    scalars = by_name(doc["header_types"], "scalars_0")
    assert ["userMetadata.sel", 16, False] in scalars["fields"]
    assert ["userMetadata.flag", 1, False] in scalars["fields"]
    assert ["intrinsic_metadata.priority", ["standard_metadata", "priority"]] in doc[
        "field_aliases"
    ]
    assert doc["errors"][0] == ["NoError", 0]
    assert doc["__meta__"]["version"][0] == 2


def test_action_selector_named_and_anonymous_profile() -> None:
    doc = compile_prog("selector")
    t = table(doc, "MyIngress.ecmp")
    assert t["type"] == "indirect_ws" and t["action_profile"] == "MyIngress.ecmp_sel"
    assert [k["target"] for k in t["key"]] == [["ipv4", "dstAddr"]]
    assert "default_entry" not in t
    prof = by_name(doc["pipelines"][0]["action_profiles"], "MyIngress.ecmp_sel")
    assert prof["max_size"] == 1024
    assert prof["selector"] == {
        "algo": "crc16",
        "input": [
            {"type": "field", "value": ["ipv4", "srcAddr"]},
            {"type": "field", "value": ["ipv4", "protocol"]},
        ],
    }
    t2 = table(doc, "MyIngress.prof")
    assert t2["type"] == "indirect" and t2["match_type"] == "ternary"
    anon = by_name(doc["pipelines"][0]["action_profiles"], t2["action_profile"])
    assert anon["max_size"] == 128 and "selector" not in anon


def test_header_stack_emitted_with_size_and_ops() -> None:
    doc = compile_prog("stacks")
    st = by_name(doc["header_stacks"], "vlan")
    assert st["size"] == 2 and st["header_type"] == "vlan_t"
    ids = {h["name"]: h["id"] for h in doc["headers"]}
    assert st["header_ids"] == [ids["vlan[0]"], ids["vlan[1]"]]
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    assert states["parse_vlan"]["parser_ops"][0]["parameters"] == [
        {"type": "stack", "value": "vlan"}
    ]
    assert states["parse_vlan"]["transition_key"] == [
        {"type": "stack_field", "value": ["vlan", "etherType"]}
    ]
    ops = [p["op"] for p in all_primitives(doc)]
    assert "push" in ops and "pop" in ops and "add_header" in ops
    assert doc["deparsers"][0]["order"] == ["ethernet", "vlan[0]", "vlan[1]", "ipv4", "tcp"]


def test_parser_select_masks_ranges_vsets_varbit() -> None:
    doc = compile_prog("parser_features")
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    start = states["start"]
    assert start["transition_key"][1] == {"type": "lookahead", "value": [0, 8]}
    tr = start["transitions"]
    assert tr[0] == {
        "type": "hexstr",
        "value": "0x080040",
        "mask": "0xfffff0",
        "next_state": "parse_ipv4",
    }
    # 0x0900..0x0902 -> two prefixes, the wildcard zeroes the second key's mask
    assert tr[1]["value"] == "0x090000" and tr[1]["mask"] == "0xfffe00"
    assert tr[2]["value"] == "0x090200" and tr[2]["mask"] == "0xffff00"
    assert tr[-1]["type"] == "default"
    assert states["skip"]["parser_ops"][0] == {
        "op": "advance",
        "parameters": [{"type": "hexstr", "value": "0x00000020"}],
    }
    verify = states["parse_ipv4"]["parser_ops"][1]
    assert verify["op"] == "verify" and verify["parameters"][1] == {
        "type": "hexstr",
        "value": "0x00000007",
    }
    assert ["BadVersion", 7] in doc["errors"]
    assert {
        "type": "parse_vset",
        "value": "MyParser.special",
        "mask": None,
        "next_state": None,
    } in states["parse_ipv4"]["transitions"]
    assert doc["parse_vsets"][0]["compressed_bitwidth"] == 4
    vl = states["parse_opts"]["parser_ops"][0]
    assert vl["op"] == "extract_VL" and vl["parameters"][1]["type"] == "expression"
    opts = by_name(doc["header_types"], "opts_t")
    assert opts["fields"][1] == ["data", "*"] and opts["max_length"] == 41


def test_externs() -> None:
    doc = compile_prog("externs")
    assert doc["register_arrays"][0] == {
        "name": "MyIngress.regs", "id": 0, "source_info": doc["register_arrays"][0]["source_info"], "size": 64, "bitwidth": 32,
    }  # fmt: skip
    counters = {c["name"]: c for c in doc["counter_arrays"]}
    assert counters["MyIngress.pkts"]["size"] == 16 and not counters["MyIngress.pkts"]["is_direct"]
    assert (
        counters["MyIngress.tcount"]["is_direct"]
        and counters["MyIngress.tcount"]["binding"] == "MyIngress.t"
    )
    meters = {m["name"]: m for m in doc["meter_arrays"]}
    assert meters["MyIngress.rate"]["type"] == "bytes" and meters["MyIngress.rate"]["size"] == 8
    dm = meters["MyIngress.tmeter"]
    assert dm["is_direct"] and dm["result_target"] == ["scalars", "userMetadata.color"]
    t = table(doc, "MyIngress.t")
    assert t["with_counters"] and t["direct_meters"] == "MyIngress.tmeter"
    prims = {p["op"]: p for p in all_primitives(doc)}
    h = prims["modify_field_with_hash_based_offset"]["parameters"]
    calc = by_name(doc["calculations"], h[2]["value"])
    assert calc["algo"] == "crc16" and len(calc["input"]) == 3 and h[3]["value"] == "0x00000008"
    assert prims["register_read"]["parameters"][1] == {
        "type": "register_array",
        "value": "MyIngress.regs",
    }
    assert prims["register_write"]["parameters"][0] == {
        "type": "register_array",
        "value": "MyIngress.regs",
    }
    assert prims["count"]["parameters"][0] == {"type": "counter_array", "value": "MyIngress.pkts"}
    assert prims["execute_meter"]["parameters"][2] == {
        "type": "field",
        "value": ["scalars", "userMetadata.color"],
    }
    assert "modify_field_rng_uniform" in prims and "truncate" in prims and "assert" in prims
    assert prims["clone_ingress_pkt_to_egress"]["parameters"][1] == {
        "type": "hexstr",
        "value": "0x01",
    }
    assert prims["recirculate"]["parameters"] == [{"type": "hexstr", "value": "0x01"}]
    assert doc["field_lists"][0]["elements"] == [
        {"type": "field", "value": ["scalars", "userMetadata.keep"]}
    ]
    dg = prims["generate_digest"]["parameters"]
    ll = doc["learn_lists"][0]
    assert dg[1]["value"] == f"0x{ll['id']:02x}" and len(ll["elements"]) == 2
    assert prims["log_msg"]["parameters"][0] == {"type": "string", "value": "sel={}"}
    cks = doc["checksums"]
    assert [(c["verify"], c["update"]) for c in cks] == [
        (True, False),
        (False, True),
        (False, True),
    ]
    assert cks[0]["target"] == ["ipv4", "hdrChecksum"]
    payload_calc = by_name(doc["calculations"], cks[2]["calculation"])
    assert payload_calc["input"][-1]["type"] == "payload"
    assert payload_calc["input"][2] == {"type": "hexstr", "value": "0x00", "bitwidth": 8}


def test_control_flow_switch_hit_exit() -> None:
    doc = compile_prog("flow")
    t1 = table(doc, "MyIngress.t1")
    assert t1["match_type"] == "range"
    nxt = t1["next_tables"]
    assert nxt["MyIngress.a2"] is None  # return
    assert nxt["MyIngress.a1"] != nxt["NoAction"]  # a1 case vs default case
    e0 = t1["entries"][0]
    assert e0["match_key"] == [
        {"match_type": "ternary", "key": "0x0a000000", "mask": "0xff000000"},
        {"match_type": "range", "start": "0x06", "end": "0x11"},
    ]
    assert e0["priority"] == 1 and t1["entries"][1]["priority"] == 2
    t2 = table(doc, "MyIngress.t2")
    assert set(t2["next_tables"]) == {"__HIT__", "__MISS__"}
    miss = table(doc, t2["next_tables"]["__MISS__"])
    assert miss["next_tables"] == {miss["actions"][0]: None}  # exit ends the pipeline
    a1 = by_name(doc["actions"], "MyIngress.a1")
    ops = [p["op"] for p in a1["primitives"]]
    assert ops == ["_jump_if_zero", "mark_to_drop", "_jump", "assign"]
    assert a1["primitives"][0]["parameters"][1]["value"] == "0x03"
    assert a1["primitives"][2]["parameters"][0]["value"] == "0x04"
    assert by_name(doc["actions"], "MyIngress.a2")["primitives"][0]["op"] == "exit"


def test_expression_lowering() -> None:
    doc = compile_ingress(
        """
        hdr.ipv4.ttl = hdr.ipv4.ttl |+| 8w200;
        hdr.ipv4.diffserv = hdr.ipv4.ttl[3:0] ++ 4w0xF;
        hdr.ipv4.totalLen[7:0] = 8w0x5A;
        meta.flag = hdr.ipv4.ttl > 8w3 && !meta.flag;
        meta.r = meta.flag ? 32w1 : (bit<32>)hdr.ipv4.ttl;
        hdr.ipv4.identification = (bit<16>)(int<16>)(-16s5);
        """
    )
    prims = [p["parameters"] for p in all_primitives(doc) if p["op"] == "assign"]
    for ps in prims:  # an expression argument is wrapped twice, as BMv2 reads it
        if ps[1]["type"] == "expression":
            assert ps[1]["value"]["type"] == "expression"
            ps[1] = ps[1]["value"]
    sat = prims[0][1]["value"]
    assert sat["op"] == "usat_cast" and sat["right"]["value"] == "0x08"
    cat = prims[1][1]["value"]
    assert cat["op"] == "&" and cat["left"]["value"]["op"] == "|"
    sl = prims[2][1]["value"]
    assert sl["op"] == "|" and sl["left"]["value"]["right"]["value"] == "0xff00"
    assert prims[3][1]["value"]["op"] == "b2d"
    assert prims[4][1]["value"]["op"] == "?"
    assert prims[5][1] == {"type": "hexstr", "value": "0xfffb"}  # folded


def test_entry_priorities_follow_p4c_listing_order() -> None:
    """p4c-bm2-ss numbers entries by position whatever their ``priority =`` (simple_switch
    then tries them in order); ``const entries`` with priorities are refused, as p4c does."""
    table_src = """
    action set(bit<8> v) { hdr.ipv4.ttl = v; }
    table t {
        key = { hdr.ipv4.protocol: ternary; }
        actions = { set; }
        %s entries = {
            priority = 10: 8w0x0A &&& 8w0x0F: set(8w1);
            priority = 30: 8w0x1A &&& 8w0xFF: set(8w2);
        }
    }"""
    doc = compile_ingress("t.apply();", table_src % "")
    es = table(doc, "MyIngress.t")["entries"]
    assert [e["priority"] for e in es] == [1, 2]
    assert es[1]["action_entry"]["action_data"] == ["0x02"]
    with pytest.raises(CompileError, match="'const entries' cannot have priorities") as err:
        compile_ingress("t.apply();", table_src % "const")
    assert ":13:" in str(err.value).splitlines()[0]


def test_function_inlined_with_return_jumps() -> None:
    doc = compile_ingress("        hdr.ipv4.ttl = dec(hdr.ipv4.ttl, 8w2);")
    prims = all_primitives(doc)
    ops = [p["op"] for p in prims]
    assert ops == [
        "assign",
        "assign",
        "_jump_if_zero",
        "assign",
        "_jump",
        "assign",
        "_jump",
        "assign",
    ]
    assert prims[2]["parameters"][1]["value"] == "0x05"
    assert prims[4]["parameters"][0]["value"] == prims[6]["parameters"][0]["value"] == "0x07"
    assert prims[7]["parameters"][1] == {"type": "field", "value": ["scalars", "dec_ret"]}


def test_top_level_register_shared_by_blocks() -> None:
    from emulator.p4c import compile_source

    from .p4c_helpers import PROGRAMS

    text = (
        (PROGRAMS / "lpm_router.p4")
        .read_text()
        .replace("SIMPLE_PARSER", "register<bit<8>>(4) shared;\nSIMPLE_PARSER")
        .replace("routes.apply();", "routes.apply(); shared.write(0, hdr.ipv4.ttl);")
    )
    doc = compile_source(text, str(PROGRAMS / "shared.p4"))
    assert doc["register_arrays"][0]["name"] == "shared"
    assert any(p["op"] == "register_write" for p in all_primitives(doc))


def test_switch_fallthrough_labels_share_a_case() -> None:
    decls = """
    action a() { }
    action b() { }
    action c() { }
    table t { key = { hdr.ipv4.ttl: exact; } actions = { a; b; c; } }"""
    body = """        switch (t.apply().action_run) {
            a:
            b: { hdr.ipv4.ttl = 8w1; }
            c: { hdr.ipv4.ttl = 8w2; }
        }"""
    doc = compile_ingress(body, decls)
    nxt = table(doc, "MyIngress.t")["next_tables"]
    assert nxt["MyIngress.a"] == nxt["MyIngress.b"] != nxt["MyIngress.c"]
    assert None not in (nxt["MyIngress.a"], nxt["MyIngress.c"])


def test_sub_parser_is_inlined_as_states() -> None:
    from emulator.p4c import compile_file

    from .p4c_helpers import PROGRAMS

    doc = compile_file(PROGRAMS.parents[2] / "p4" / "corpus" / "parser_select.p4")
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    assert "tail_parser_start" in states
    path2 = states["path2"]
    assert path2["transitions"][0]["next_state"] == "tail_parser_start"
    cont = states["tail_parser_start"]["transitions"][0]["next_state"]
    assert cont.startswith("path2_after_tail_parser")
    assert states[cont]["transitions"][0]["next_state"] is None


def test_calls_in_if_conditions_compute_temporaries_first() -> None:
    doc = compile_ingress(
        "        if (dec(hdr.ipv4.ttl, 8w1) == 8w0 && r.read(32w0) != 8w0) { mark_to_drop(std); }",
        "    register<bit<8>>(4) r;",
    )
    pipe = doc["pipelines"][0]
    first = table(doc, pipe["init_table"])
    cond = pipe["conditionals"][0]
    assert first["base_default_next"] == cond["name"]
    ops = [p["op"] for p in by_name(doc["actions"], first["actions"][0])["primitives"]]
    assert "register_read" in ops and "_jump_if_zero" in ops
    assert cond["expression"]["value"]["op"] == "and"


def test_switch_on_a_value_becomes_a_conditional_chain() -> None:
    body = """        switch (hdr.ipv4.protocol) {
            6:
            17: { hdr.ipv4.ttl = 8w1; }
            1: { hdr.ipv4.ttl = 8w2; }
            default: { hdr.ipv4.ttl = 8w3; }
        }"""
    doc = compile_ingress(body)
    conds = {c["name"]: c for c in doc["pipelines"][0]["conditionals"]}
    first = conds[doc["pipelines"][0]["init_table"]]
    assert first["expression"]["value"]["op"] == "or"
    second = conds[first["false_next"]]
    assert second["expression"]["value"]["right"] == {"type": "hexstr", "value": "0x01"}
    assert table(doc, second["false_next"])["key"] == []  # default body


def test_expression_keys_use_temporaries_computed_before_the_table() -> None:
    decls = """
    table t {
        key = { hdr.ipv4.ttl + 8w1: exact @name("ttl1"); hdr.ipv4.isValid(): exact;
                hdr.ipv4.dstAddr[31:24]: ternary; }
        actions = { NoAction; }
    }"""
    doc = compile_ingress("        t.apply();", decls)
    t = table(doc, "MyIngress.t")
    assert [k["name"] for k in t["key"]] == [
        "ttl1",  # p4c wants an @name on an expression key
        "hdr.ipv4.$valid$",  # as p4c-bm2-ss names a validity key
        "hdr.ipv4.dstAddr[31:24]",
    ]
    assert t["key"][0]["target"] == ["scalars", "t_key"]
    assert t["key"][1]["target"] == ["ipv4", "$valid$"]
    # a slice is a temporary too (as p4c-bm2-ss does): the control plane gives its own value
    assert t["key"][2]["target"] == ["scalars", "t_key_0"] and t["key"][2]["mask"] is None
    pre = table(doc, doc["pipelines"][0]["init_table"])
    assert pre["base_default_next"] == "MyIngress.t"
    prim = by_name(doc["actions"], pre["actions"][0])["primitives"][0]
    assert prim["op"] == "assign" and prim["parameters"][0] == {
        "type": "field",
        "value": ["scalars", "t_key"],
    }


def test_if_in_parser_state_splits_the_state() -> None:
    doc = compile_prog("features")
    states = {s["name"]: s for s in doc["parsers"][0]["parse_states"]}
    head = states["parse_feat"]
    assert head["parser_ops"][-1]["op"] == "set"
    assert head["transition_key"] == [head["parser_ops"][-1]["parameters"][0]]
    assert [t["next_state"] for t in head["transitions"]] == ["parse_feat_then", "parse_feat_else"]
    assert states["parse_feat_then"]["transitions"][0]["next_state"] == "parse_feat_cont"
    assert states["parse_feat_cont"]["transitions"][0]["next_state"] is None


def test_synthesized_names_avoid_user_names() -> None:
    decls = """
    action act() { hdr.ipv4.ttl = 8w1; }
    table tbl_act { key = { hdr.ipv4.ttl: exact; } actions = { act; } }"""
    doc = compile_ingress("        hdr.ipv4.ttl = 8w2;\n        tbl_act.apply();", decls)
    names = [a["name"] for a in doc["actions"]]
    assert len(names) == len(set(names)) and "MyIngress.act" in names
    tables = [t["name"] for t in doc["pipelines"][0]["tables"]]
    assert len(tables) == len(set(tables)) and "MyIngress.tbl_act" in tables
