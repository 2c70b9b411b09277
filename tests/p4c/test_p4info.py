"""P4Info text output (``--p4runtime-files``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.cli.main import main as fabemu
from emulator.p4c import CompileError
from emulator.p4c.backend.p4info import jenkins
from emulator.p4c.compiler import compile_with_p4info

from .p4c_helpers import PROGRAMS, ingress_program


def _blocks(text: str, kind: str) -> list[str]:
    parts = text.split(f"\n{kind} {{\n")
    return [p.split("\n}\n", 1)[0] for p in parts[1:]]


def test_ids_follow_p4c_hashing() -> None:
    # NoAction's P4Runtime id in every p4c-generated P4Info
    assert (0x01 << 24) | (jenkins("NoAction") & 0xFFFFFF) == 21257015
    _, text = compile_with_p4info(PROGRAMS / "lpm_router.p4")
    assert '  id: 21257015\n    name: "NoAction"' not in text  # NoAction unused by routes
    tables = _blocks(text, "tables")
    assert len(tables) == 1 and 'name: "MyIngress.routes"' in tables[0]
    assert "match_type: LPM" in tables[0] and "bitwidth: 32" in tables[0]
    assert "const_default_action_id:" in tables[0] and "size: 512" in tables[0]
    fwd = next(a for a in _blocks(text, "actions") if "MyIngress.forward" in a)
    assert 'name: "dmac"\n    bitwidth: 48' in fwd and 'alias: "forward"' in fwd


def test_resources_and_units() -> None:
    _, text = compile_with_p4info(PROGRAMS / "externs.p4")
    t = _blocks(text, "tables")[0]
    assert t.count("direct_resource_ids:") == 2
    assert "unit: PACKETS" in _blocks(text, "counters")[0]
    assert "unit: BOTH" in _blocks(text, "direct_counters")[0]
    assert "unit: BYTES" in _blocks(text, "meters")[0]
    assert "bitwidth: 32" in _blocks(text, "registers")[0]
    assert 'name: "learn_t"' in _blocks(text, "digests")[0]


def test_selector_profile_and_anonymous_selector_rejected(tmp_path: Path) -> None:
    _, text = compile_with_p4info(PROGRAMS / "selector.p4")
    prof = next(p for p in _blocks(text, "action_profiles") if "ecmp_sel" in p)
    assert "with_selector: true" in prof and "size: 1024" in prof
    src = (
        (PROGRAMS / "selector.p4")
        .read_text()
        .replace(
            "implementation = ecmp_sel;",
            "implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);",
        )
    )
    prog = PROGRAMS / "anon_selector.p4"
    try:
        prog.write_text(src)
        with pytest.raises(CompileError, match="anonymous action_selector"):
            compile_with_p4info(prog)
    finally:
        prog.unlink()


def test_cli_writes_p4info(tmp_path: Path) -> None:
    info = tmp_path / "p.p4info.txt"
    rc = fabemu(
        [
            "p4c",
            str(PROGRAMS / "flow.p4"),
            "-o",
            str(tmp_path / "p.json"),
            "--p4runtime-files",
            str(info),
        ]
    )
    assert rc == 0
    assert "is_const_table: true" in info.read_text()
    assert (
        fabemu(
            [
                "p4c",
                str(PROGRAMS / "flow.p4"),
                "-o",
                str(tmp_path / "p.json"),
                "--p4runtime-files",
                "x.bin",
            ]
        )
        == 2
    )


def test_validity_keys_are_named_as_p4c_names_them(tmp_path: Path) -> None:
    """``h.isValid(): exact`` is the key ``h.$valid$`` in the JSON and the P4Info (as
    p4c-bm2-ss writes both), also for a stack element; ``@name`` wins."""
    decls = """
    table t {
        key = {
            hdr.ipv4.isValid(): exact;
            hdr.vlan[1].isValid(): exact;
            hdr.tcp.isValid(): exact @name("tcp_ok");
        }
        actions = { NoAction; }
    }"""
    prog = tmp_path / "valid_keys.p4"
    prog.write_text(ingress_program("        t.apply();", decls))
    doc, info = compile_with_p4info(prog, include_dirs=[str(PROGRAMS)])
    names = ["hdr.ipv4.$valid$", "hdr.vlan[1].$valid$", "tcp_ok"]
    (t,) = [t for p in doc["pipelines"] for t in p["tables"] if t["name"] == "MyIngress.t"]
    assert [k["name"] for k in t["key"]] == names
    assert [k["target"] for k in t["key"]] == [
        ["ipv4", "$valid$"],
        ["vlan[1]", "$valid$"],
        ["tcp", "$valid$"],
    ]
    (table_info,) = _blocks(info, "tables")
    for i, name in enumerate(names, 1):
        assert f'id: {i}\n    name: "{name}"\n    bitwidth: 1\n    match_type: EXACT' in table_info


def test_action_scopes_as_p4c_writes_them(tmp_path: Path) -> None:
    """``@defaultonly``/``@tableonly`` in an actions list give the action_ref an annotation
    and a scope (p4c-bm2-ss 1.2.4.8's output for the same table, checked by hand)."""
    decls = (
        "    action a(bit<8> v) { hdr.ipv4.ttl = v; }\n"
        "    table t2 { key = { hdr.ipv4.ttl: exact; }\n"
        "        actions = { @tableonly a; @defaultonly NoAction; }\n"
        "        default_action = NoAction(); }"
    )
    path = tmp_path / "scopes.p4"
    path.write_text(ingress_program("        t2.apply();", decls))
    (tmp_path / "common.p4").write_text((PROGRAMS / "common.p4").read_text())
    _, text = compile_with_p4info(path)
    table = _blocks(text, "tables")[0]
    assert (
        "  action_refs {\n    id: 21257015\n"
        '    annotations: "@defaultonly"\n    scope: DEFAULT_ONLY\n  }'
    ) in "\n" + table + "\n"
    assert '    annotations: "@tableonly"\n    scope: TABLE_ONLY\n  }' in table
    assert table.count("scope:") == 2
