"""Match kinds, priorities, defaults, const entries and control flow of the built-in target."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target.errors import CliError
from emulator.target.switch import Switch

from .bmv2json import Program, assign, eth_ipv4_udp, ex, fld, hexv, prim, rd
from .fakes import FifoTM, ipv4_udp

EGRESS_SPEC = fld("standard_metadata", "egress_spec")


def one_table(keys, **table_kw):
    """eth/ipv4/udp program whose ingress applies MyIngress.t(keys) -> fwd(port) | drop."""
    p = Program()
    eth_ipv4_udp(p)
    fwd = p.action("MyIngress.fwd", [("port", 9)], [assign(EGRESS_SPEC, rd(0))])
    drop = p.action(
        "MyIngress.drop",
        [],
        [prim("mark_to_drop", {"type": "header", "value": "standard_metadata"})],
    )
    p.table(0, "MyIngress.t", keys, [fwd, drop], drop, **table_kw)
    return p.doc


def make(doc):
    return Switch(doc, tm=FifoTM(lambda: 0))


def out_ports(sw, frame, port=1):
    return [p for p, _ in sw.process(port, frame)]


def test_exact_hit_and_miss():
    sw = make(one_table([("exact", ["ipv4", "dstAddr"], None)]))
    text = sw.cli("table_add MyIngress.t MyIngress.fwd 10.1.1.1 => 3")
    assert "Entry has been added with handle 0" in text
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [3]
    assert out_ports(sw, ipv4_udp(dst=0x0A010102)) == []
    assert sw.stats["dropped"] == 1


def test_lpm_longest_prefix_wins():
    sw = make(one_table([("lpm", ["ipv4", "dstAddr"], None)]))
    sw.cli("table_add t fwd 10.1.1.1/32 => 3")
    sw.cli("table_add t fwd 10.0.0.0/8 => 1")
    sw.cli("table_add t fwd 10.1.0.0/16 => 2")
    sw.cli("table_add t fwd 0.0.0.0/0 => 4")
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [3]
    assert out_ports(sw, ipv4_udp(dst=0x0A010202)) == [2]
    assert out_ports(sw, ipv4_udp(dst=0x0A020202)) == [1]
    assert out_ports(sw, ipv4_udp(dst=0x0B000001)) == [4]


def test_lpm_prefix_counts_over_whole_bytes_as_bmv2():
    """A 4-bit lpm key (ipv4.ihl, 5 here) is one byte to BMv2, its value in the low bits:
    ``0x8/1`` asks for the byte's top bit to be 0, so it matches ihl 5; ``/4`` is the
    longest prefix (BAD_MATCH_KEY beyond the field's width) and covers only padding."""
    sw = make(one_table([("lpm", ["ipv4", "ihl"], None)]))
    sw.cli("table_add t fwd 0x8/1 => 3")
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [3]
    sw.cli("table_add t fwd 0xf/4 => 4")  # top 4 of 8 bits zero: ihl 5 too, longer prefix
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [4]
    with pytest.raises(CliError, match="invalid prefix length '5'"):
        sw.cli("table_add t fwd 0x5/5 => 1")


def test_lpm_with_exact_key():
    sw = make(
        one_table([("exact", ["ipv4", "protocol"], None), ("lpm", ["ipv4", "dstAddr"], None)])
    )
    sw.cli("table_add t fwd 17 10.0.0.0/8 => 1")
    sw.cli("table_add t fwd 6 10.1.0.0/16 => 2")
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [1]


def test_ternary_smallest_priority_value_wins():
    sw = make(one_table([("ternary", ["ipv4", "dstAddr"], None)]))
    sw.cli("table_add t fwd 10.1.1.1&&&255.255.255.255 => 1 20")
    sw.cli("table_add t fwd 10.0.0.0&&&255.0.0.0 => 2 10")
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [2]
    sw.cli("table_add t fwd 0x0a010101&&&0xffffffff => 3 5")
    assert out_ports(sw, ipv4_udp(dst=0x0A010101)) == [3]
    assert out_ports(sw, ipv4_udp(dst=0x0B010101)) == []


def test_range_and_optional_keys():
    sw = make(one_table([("range", ["udp", "dstPort"], None), ("optional", ["ipv4", "ttl"], None)]))
    sw.cli("table_add t fwd 4000->5000 0&&&0 => 1 1")
    sw.cli("table_add t fwd 4791->4791 64&&&255 => 2 0")
    assert out_ports(sw, ipv4_udp(dport=4791, ttl=64)) == [2]
    assert out_ports(sw, ipv4_udp(dport=4791, ttl=3)) == [1]
    assert out_ports(sw, ipv4_udp(dport=6000)) == []


def test_valid_key_and_static_mask():
    sw = make(one_table([("valid", "udp", None), ("exact", ["ipv4", "dstAddr"], 0xFFFF0000)]))
    sw.cli("table_add t fwd 1 10.1.0.0 => 5")
    sw.cli("table_add t fwd 0 10.1.0.0 => 6")
    assert out_ports(sw, ipv4_udp(dst=0x0A01ABCD)) == [5]
    tcp_like = bytearray(ipv4_udp(dst=0x0A01ABCD))
    tcp_like[23] = 6  # protocol TCP: udp not parsed -> invalid
    assert out_ports(sw, bytes(tcp_like)) == [6]


def test_modify_delete_clear_duplicate():
    sw = make(one_table([("exact", ["ipv4", "dstAddr"], None)]))
    sw.cli("table_add t fwd 10.1.1.1 => 3")
    with pytest.raises(CliError, match="duplicate"):
        sw.cli("table_add t fwd 10.1.1.1 => 4")
    sw.cli("table_modify t fwd 0 => 7")
    assert out_ports(sw, ipv4_udp()) == [7]
    sw.cli("table_delete t 0")
    assert out_ports(sw, ipv4_udp()) == []
    sw.cli("table_add t fwd 10.1.1.1 => 3")
    sw.cli("table_clear t")
    assert sw.cli("table_num_entries t") == "0"


def test_default_entry_and_set_default():
    sw = make(one_table([("exact", ["ipv4", "dstAddr"], None)]))
    assert out_ports(sw, ipv4_udp()) == []
    sw.cli("table_set_default t fwd 9")
    assert out_ports(sw, ipv4_udp()) == [9]
    assert "Dumping default entry" in sw.cli("table_dump t")


def test_const_entries_are_loaded_and_immutable():
    entries = [
        {
            "match_key": [{"match_type": "exact", "key": "0x0a010101"}],
            "action_entry": {"action_id": 0, "action_data": ["0x0004"]},
            "priority": 1,
        }
    ]
    sw = make(one_table([("exact", ["ipv4", "dstAddr"], None)], entries=entries))
    assert out_ports(sw, ipv4_udp()) == [4]
    with pytest.raises(CliError, match="const"):
        sw.cli("table_add t fwd 10.1.1.2 => 3")


def test_hit_miss_next_tables_and_conditional():
    p = Program()
    eth_ipv4_udp(p)
    fwd = p.action("fwd", [("port", 9)], [assign(EGRESS_SPEC, rd(0))])
    mark = p.action("mark", [], [assign(fld("ipv4", "diffserv"), hexv(0x2E))])
    noop = p.action("NoAction", [], [])
    p.cond(0, "c0", ex(">", fld("ipv4", "ttl"), hexv(10)), "t1", None, init=True)
    p.table(
        0,
        "t1",
        [("exact", ["ipv4", "dstAddr"], None)],
        [fwd, noop],
        noop,
        next_tables={"__HIT__": "t2", "__MISS__": None},
    )
    p.table(0, "t2", [], [mark], mark)
    sw = make(p.doc)
    sw.cli("table_add t1 fwd 10.1.1.1 => 2")
    ((port, frame),) = sw.process(1, ipv4_udp(ttl=64))
    assert port == 2 and frame[15] == 0x2E
    ((port, frame),) = sw.process(1, ipv4_udp(dst=0x0A000009))
    assert port == 0 and frame[15] == 0  # miss: t2 skipped; unset egress_spec = port 0
    ((port, frame),) = sw.process(1, ipv4_udp(ttl=5))
    assert port == 0 and frame[15] == 0  # condition false: nothing applied


def test_exit_and_jumps_inside_actions():
    p = Program()
    eth_ipv4_udp(p)
    # if (ttl == 64) { egress_spec = 2 } else { egress_spec = 3 }; exit; dead code after
    branchy = p.action(
        "branchy",
        [],
        [
            prim("_jump_if_zero", ex("b2d", None, ex("==", fld("ipv4", "ttl"), hexv(64))), hexv(3)),
            assign(EGRESS_SPEC, hexv(2)),
            prim("_jump", hexv(4)),
            assign(EGRESS_SPEC, hexv(3)),
            prim("exit"),
            assign(EGRESS_SPEC, hexv(9)),
        ],
    )
    late = p.action("late", [], [assign(EGRESS_SPEC, hexv(8))])
    p.table(0, "t1", [], [branchy], branchy, base_next="t2")
    p.table(0, "t2", [], [late], late)
    sw = make(p.doc)
    assert out_ports(sw, ipv4_udp(ttl=64)) == [2]
    assert out_ports(sw, ipv4_udp(ttl=9)) == [3]


def test_direct_counter_counts_hits_only():
    doc = one_table([("exact", ["ipv4", "dstAddr"], None)], with_counters=True)
    doc["counter_arrays"].append(
        {
            "name": "MyIngress.t_ctr",
            "id": 0,
            "is_direct": True,
            "binding": "MyIngress.t",
            "size": 1024,
        }
    )
    sw = make(doc)
    sw.cli("table_add t fwd 10.1.1.1 => 3")
    frame = ipv4_udp(payload=b"abc")
    sw.process(1, frame)
    sw.process(1, frame)
    sw.process(1, ipv4_udp(dst=5))
    assert sw.tables["MyIngress.t"].entries[0].packets == 2
    text = sw.cli("counter_read t_ctr 0")
    assert text == (  # simple_switch_CLI's wording, the table named first for a direct counter
        f"this is the direct counter for table MyIngress.t\nt_ctr[0]= ({2 * len(frame)} bytes, 2 packets)"
    )
    sw.cli("counter_reset t_ctr")
    assert sw.cli("counter_read t_ctr 0").endswith("t_ctr[0]= (0 bytes, 0 packets)")


def test_direct_meter_colors_hits():
    doc = one_table([("exact", ["ipv4", "dstAddr"], None)], direct_meters="MyIngress.dm")
    doc["meter_arrays"].append({"name": "MyIngress.dm", "id": 0, "is_direct": True,
                                "binding": "MyIngress.t", "size": 1024, "type": "packets",
                                "rate_count": 2, "result_target": ["ipv4", "diffserv"]})  # fmt: skip
    sw = make(doc)
    sw.cli("table_add t fwd 10.1.1.1 => 3")
    sw.cli("meter_set_rates dm 0 0.000001:1 0.000001:2")  # committed burst 1, peak burst 2
    colors = [sw.process(1, ipv4_udp())[0][1][15] for _ in range(3)]
    assert colors == [0, 1, 2]
    with pytest.raises(CliError, match="invalid entry handle"):
        sw.cli("meter_set_rates dm 5 1:1 1:1")


def test_handles_are_reused_lowest_first_like_bmv2():
    sw = make(one_table([("exact", ["ipv4", "dstAddr"], None)]))
    for i in range(3):
        sw.cli(f"table_add t fwd 10.0.0.{i} => 1")
    sw.cli("table_delete t 1")
    sw.cli("table_delete t 0")
    # the index reused lowest first, its version (bits 24 and up) one more
    assert sw.cli("table_add t fwd 10.0.1.0 => 1").endswith(f"handle {0 | 1 << 24}")
    assert sw.cli("table_add t fwd 10.0.1.1 => 1").endswith(f"handle {1 | 1 << 24}")
    assert sw.cli("table_add t fwd 10.0.1.2 => 1").endswith("handle 3")


@pytest.mark.parametrize(
    ("kind", "first", "again", "other"),
    [
        ("exact", "10.1.1.1", "10.1.1.1", "10.1.1.2"),
        ("lpm", "10.1.0.0/16", "10.1.0.0/16", "10.1.0.0/24"),
        ("ternary", "10.1.1.1&&&255.255.0.0 => 3 7", "10.1.1.1&&&255.255.0.0 => 3 7",
         "10.1.1.1&&&255.255.0.0 => 3 8"),  # same match, another priority: not a duplicate
    ],
)  # fmt: skip
def test_duplicates_are_refused_until_deleted(
    kind: str, first: str, again: str, other: str
) -> None:
    """The duplicate check (an index since a scan made big tables quadratic to program)
    follows adds, deletes and clears."""
    sw = make(one_table([(kind, ["ipv4", "dstAddr"], None)]))

    def add(spec: str) -> str:
        return sw.cli(f"table_add t fwd {spec if '=>' in spec else spec + ' => 3'}")

    def refused(spec: str) -> None:
        with pytest.raises(CliError, match="duplicate"):
            add(spec)

    assert "handle 0" in add(first)
    refused(again)
    assert "handle 1" in add(other)
    sw.cli("table_delete t 0")
    assert "handle 16777216" in add(again)  # gone from the index with the entry
    sw.cli("table_clear t")
    assert "handle" in add(first) and "handle" in add(other)
    refused(other)


def _index_state(t):
    """A table's lookup index, comparable: exact dict, LPM levels, ternary order, dup index."""
    return (
        dict(t._exact),
        [(plen, shift, dict(d)) for plen, shift, d in t._levels],
        [e.handle for e in t._sorted],
        {k: e.handle for k, e in t._by_match.items()},
    )


KEYS = {
    "exact": [("exact", ["ipv4", "protocol"], None), ("exact", ["ipv4", "dstAddr"], None)],
    "lpm": [("exact", ["ipv4", "protocol"], None), ("lpm", ["ipv4", "dstAddr"], None)],
    "ternary": [("ternary", ["ipv4", "dstAddr"], None)],
}


def _churn(kind: str, ops: list[tuple[bool, int, int, int]]) -> tuple[int, int]:
    """Apply adds and deletes to a fresh table of ``kind``; after each, the index must equal
    a rebuild from the remaining entries, lookups included. (adds, deletes) that went in."""
    sw = make(one_table(KEYS[kind]))
    t = sw.tables["MyIngress.t"]
    handles: list[int] = []
    adds = deletes = 0
    for is_add, proto, plen, pick in ops:
        addr = (10 << 24) | (proto << 16) | (pick << 8)
        if is_add or not handles:
            match = {
                "exact": f"{proto} {addr}",
                "lpm": f"{proto} {addr}/{plen}",
                "ternary": f"{addr}&&&{(0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF}",
            }[kind]
            prio = f" {pick}" if kind == "ternary" else ""
            try:
                text = sw.cli(f"table_add t fwd {match} => {proto + 1}{prio}")
            except CliError as exc:
                assert "duplicate" in str(exc)
                continue  # refused, nothing changed
            handles.append(int(text.rsplit("handle", 1)[1]))
            adds += 1
        else:
            sw.cli(f"table_delete t {handles.pop(pick % len(handles))}")
            deletes += 1
        now = _index_state(t)
        probes = [(p, (10 << 24) | (p << 16) | (pick << 8)) for p in range(4)]
        probes = [k[1:] for k in probes] if kind == "ternary" else probes
        found = [t.lookup(k) for k in probes]
        t._reindex()
        assert _index_state(t) == now
        assert [t.lookup(k) for k in probes] == found
    return adds, deletes


OP = st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 32), st.integers(0, 40))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(KEYS)), ops=st.lists(OP, max_size=40))
def test_delete_leaves_the_index_a_rebuild_would_build(kind: str, ops: list) -> None:
    """Deleting an entry updates the index in place (a rebuild made it O(table size))."""
    _churn(kind, ops)


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_long_churn_keeps_the_index_of_a_rebuild(kind: str) -> None:
    """400 seeded adds and deletes per kind, most of them taking effect."""
    rng = random.Random(7)
    ops = [
        (rng.random() < 0.6, rng.randrange(4), rng.randrange(8, 33), rng.randrange(41))
        for _ in range(400)
    ]
    adds, deletes = _churn(kind, ops)
    assert adds > 100 and deletes > 80, (adds, deletes)
