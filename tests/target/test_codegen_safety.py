"""Generated code never contains text from the JSON: only identifiers we make up and ints."""

from __future__ import annotations

import io
import json
import keyword
import re
import tokenize
from pathlib import Path
from types import FunctionType

from emulator.target.switch import Switch

from .bmv2json import Program, assign, eth_ipv4_udp, fld, hexv, prim
from .fakes import FifoTM, ipv4_udp
from .test_packet_parser import parser_program
from .test_v1model import flow_program

HOSTILE = "x');__import__('os').system('touch /tmp/pwned')#\"{}"
GENERATED = re.compile(r"(_o|act_|ps_|nd_|key_|dep_|emit_|calc_|ck_|trunc_|hbase_|mcol_)\d+\Z")
#: every other identifier the generator may emit: keywords, locals, helpers, attributes
VOCABULARY = set(keyword.kwlist) | {
    "f", "p", "d", "o", "e", "x", "k", "i", "b", "b0", "b1", "pc", "a", "v",
    "_BIG", "_EMPTY", "_PE", "_sx", "_sat", "_usat", "_ifb", "_pack", "_push", "_pop", "_AF",
    "_logm", "_rng", "_xvl", "_evl", "min", "max", "any",
    "off", "n", "buf", "payload", "exit", "clone_session", "clone_fl", "resubmit_fl",
    "recirc_fl", "digest", "digest_receiver", "truncate", "length_register", "look", "append", "extend",
    "to_bytes", "count", "execute", "read", "write", "randint", "deparser", "tail", "join",
    "h", "_h", "err", "code",
}  # fmt: skip


def hostile_program() -> dict:
    p = Program()
    eth_ipv4_udp(p)
    act = p.action(HOSTILE, [], [
        assign(fld("standard_metadata", "egress_spec"), hexv(3)),
        prim("log_msg", {"type": "string", "value": HOSTILE},
             {"type": "parameters_vector", "value": [fld("ipv4", "ttl")]}),
    ])  # fmt: skip
    p.table(0, "t'" + HOSTILE, [("exact", ["ipv4", "dstAddr"], None)], [act], act)
    p.cond(0, "c" + HOSTILE, {"type": "bool", "value": True}, "t'" + HOSTILE, None, init=True)
    return p.doc


def _check_sources(sw: Switch) -> None:
    sources = sw.program.cg.sources
    assert sources
    for src in sources:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            assert tok.type != tokenize.STRING, f"string literal in generated code: {src}"
            if tok.type == tokenize.NAME:
                assert GENERATED.match(tok.string) or tok.string in VOCABULARY, tok.string
            if tok.type == tokenize.NUMBER:
                assert tok.string.isdigit(), tok.string


def test_hostile_names_are_never_pasted_into_code():
    logged: list[str] = []
    sw = Switch(hostile_program(), log=logged.append, tm=FifoTM(lambda: 0))
    _check_sources(sw)
    assert not Path("/tmp/pwned").exists()
    assert sw.process(1, ipv4_udp(ttl=7)) == [(3, ipv4_udp(ttl=7))]
    assert logged == [HOSTILE.replace("{}", "7")]
    assert HOSTILE not in "".join(sw.program.cg.sources)


def test_every_fixture_program_generates_only_safe_tokens():
    l3 = Path(__file__).parent / "programs" / "l3_ecmp.json"
    for doc in (json.loads(l3.read_text()), parser_program(), flow_program()):
        _check_sources(Switch(doc, tm=FifoTM(lambda: 0)))


def test_switches_of_one_program_share_code_but_not_namespaces():
    """Code objects are compiled once per distinct source (codegen._compiled); each switch's
    functions still run in that switch's own namespace."""
    a = Switch(flow_program(), tm=FifoTM(lambda: 0))
    b = Switch(flow_program(), tm=FifoTM(lambda: 0))
    fa = {
        n: v
        for n, v in a.program.cg.ns.items()
        if isinstance(v, FunctionType) and GENERATED.match(n)
    }
    fb = {
        n: v
        for n, v in b.program.cg.ns.items()
        if isinstance(v, FunctionType) and GENERATED.match(n)
    }
    shared = [n for n in fa if n in fb and fa[n].__code__ is fb[n].__code__]
    assert shared
    assert a.program.cg.ns is not b.program.cg.ns
    assert all(fa[n].__globals__ is a.program.cg.ns for n in shared)
    assert all(fb[n].__globals__ is b.program.cg.ns for n in shared)
