"""The P4-16 corpus (p4/corpus): every program compiles with emulator.p4c and passes its STF.

Also checks, without the compiler or the target, that each program has a well-formed STF
and that every coverage item in p4/corpus/README.md names existing programs which really
contain the item's token; and (marked bmv2) that the reference p4c-bm2-ss accepts them all.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "p4" / "corpus"
PROGRAMS = sorted(CORPUS.glob("*.p4"))
README = CORPUS / "README.md"

#: STF commands understood by p4c's bmv2stf (plus `wait`/`no_packet` from its grammar).
STF_COMMANDS = {
    "add",
    "setdefault",
    "mirroring_add",
    "mc_mgrp_create",
    "mc_node_create",
    "mc_node_associate",
    "packet",
    "expect",
    "wait",
    "no_packet",
}
#: simple_switch_CLI commands passed through verbatim (fabemu STF extension).
STF_CLI_EXTENSION = {
    "act_prof_create_member",
    "act_prof_create_group",
    "act_prof_add_member_to_group",
    "table_indirect_add",
    "table_indirect_add_with_group",
    "table_indirect_set_default",
    "pvs_add",
}
#: the brief's coverage items; each must be a row of the README's coverage table.
REQUIRED_ITEMS = [
    "#include of a local header",
    "#define constants and macros",
    "#if/#ifdef/#else",
    "-D define with #ifndef default",
    "headers",
    "header stacks",
    "header unions",
    "structs",
    "typedef",
    "type",
    "enums",
    "serializable enums",
    "error (custom errors)",
    "match_kind use",
    "bit<W>",
    "int<W> signed arithmetic and comparison",
    "bool",
    "varbit<W>",
    "constants and constant folding",
    "tuples/lists in field lists",
    "parser extract",
    "varbit two-argument extract",
    "lookahead",
    "advance",
    "verify with custom error, parser_error in ingress",
    "select on tuples with masks",
    "select ranges",
    "select default and _",
    "sub-parser",
    "value_set",
    "actions with directional params",
    "actions with control-plane params",
    "if/else",
    "switch on action_run",
    ".hit / .miss",
    "exit",
    "return",
    "local variables",
    "exact keys",
    "lpm keys",
    "ternary keys",
    "range keys",
    "optional keys",
    "selector keys",
    "actions lists",
    "default_action (const and not)",
    "const entries with priorities",
    "size",
    "implementation = action_profile",
    "implementation = action_selector (named)",
    "direct counters",
    "direct meters",
    "wrap-around arithmetic",
    "saturating arithmetic",
    "bit slices read and write",
    "concatenation",
    "shifts",
    "casts (bool<->bit<1>, widening, narrowing, signed)",
    "comparisons",
    "logical ops",
    "ternary ?:",
    "isValid/setValid/setInvalid",
    "stack next/last/push_front/pop_front",
    "hash crc16",
    "hash crc32",
    "hash crc16_custom",
    "hash identity",
    "hash csum16",
    "hash xor16",
    "hash random (compile only)",
    "random",
    "register",
    "counter",
    "direct_counter",
    "meter",
    "direct_meter",
    "clone I2E",
    "clone E2E",
    "clone_preserving_field_list",
    "resubmit_preserving_field_list",
    "recirculate_preserving_field_list",
    "@field_list annotations",
    "mark_to_drop",
    "digest",
    "verify_checksum / update_checksum",
    "verify/update_checksum_with_payload (IPv4 and UDP)",
    "log_msg",
    "assert/assume",
    "truncate",
    "deparser emit",
    "multicast (mcast_grp)",
    "priority queues (standard_metadata.priority)",
]

#: simple_switch target options an STF needs (README "Target options"), as Switch kwargs.
TARGET_OPTIONS: dict[str, dict[str, int]] = {"priority_queues": {"priority_queues": 8}}

_HEX = re.compile(r"[0-9a-fA-F]+")
_EXPECT = re.compile(r"[0-9a-fA-F*]*\$?")  # "$" alone: an empty frame (truncate(0))


def _cells(line: str) -> list[str]:
    """Split a markdown table row on unescaped pipes; unescape `\\|`."""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def _coverage_rows() -> dict[str, tuple[list[str], str]]:
    """Map coverage item -> (program file names, token) from the README's Coverage table."""
    text = README.read_text()
    section = text.split("## Coverage", 1)[1]
    rows: dict[str, tuple[list[str], str]] = {}
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| Item") or line.startswith("|---"):
            continue
        item, programs, token = _cells(line)
        assert token.startswith("`") and token.endswith("`"), f"token not in backticks: {line}"
        rows[item] = ([p.strip() for p in programs.split(",")], token[1:-1])
    return rows


def _stf_lines(stf: Path) -> list[tuple[int, list[str]]]:
    """Non-empty, comment-stripped STF lines as (line number, words)."""
    out = []
    for number, raw in enumerate(stf.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((number, line.split()))
    return out


def test_corpus_is_populated() -> None:
    assert len(PROGRAMS) >= 20
    assert (CORPUS / "include" / "std_headers.p4").is_file()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_program_is_documented_and_standard(program: Path) -> None:
    text = program.read_text()
    assert text.startswith("/* "), f"{program.name}: needs a header comment saying what it tests"
    assert "#include <core.p4>" in text and "#include <v1model.p4>" in text
    assert re.search(r"V1Switch\(.*\)\s*main;", text, re.S), "no V1Switch main package"
    assert f"| {program.name} |" in README.read_text(), f"{program.name} not in README"


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_stf_is_well_formed(program: Path) -> None:
    stf = program.with_suffix(".stf")
    assert stf.is_file(), f"missing {stf.name}"
    lines = _stf_lines(stf)
    extension = program.stem in ("action_profile", "action_selector", "value_set_fields")
    packets = expects = 0
    for number, words in lines:
        where = f"{stf.name}:{number}"
        cmd = words[0]
        allowed = STF_COMMANDS | (STF_CLI_EXTENSION if extension else set())
        assert cmd in allowed, f"{where}: unknown STF command {cmd!r}"
        if cmd in ("packet", "expect"):
            assert len(words) >= 2 and words[1].isdigit(), f"{where}: port missing"
            data = "".join(words[2:])
            if cmd == "packet":
                packets += 1
                assert _HEX.fullmatch(data), f"{where}: packet data must be literal hex"
                assert len(data) % 2 == 0 and len(data) >= 28, f"{where}: bad packet length"
            elif data:
                expects += 1
                assert _EXPECT.fullmatch(data), f"{where}: bad expect data"
                assert len(data.rstrip("$")) % 2 == 0, f"{where}: odd nibble count"
    assert packets >= 2 and expects >= 2, f"{stf.name}: pins too little behaviour"


def test_every_required_item_is_covered() -> None:
    rows = _coverage_rows()
    missing = [item for item in REQUIRED_ITEMS if item not in rows]
    assert not missing, f"coverage items missing from README: {missing}"


@pytest.mark.parametrize("item", REQUIRED_ITEMS)
def test_coverage_item_maps_to_programs_containing_it(item: str) -> None:
    programs, token = _coverage_rows()[item]
    for name in programs:
        path = CORPUS / name
        assert path.is_file(), f"{item}: {name} does not exist"
        assert token in path.read_text(), f"{item}: {name} does not contain {token!r}"


def _compile(program: Path) -> dict:
    p4c = pytest.importorskip("emulator.p4c", reason="emulator.p4c not built yet")
    compile_file = getattr(p4c, "compile_file", None)
    if compile_file is None:
        pytest.skip("emulator.p4c.compile_file not available yet")
    return compile_file(program, include_dirs=(CORPUS,), defines={})


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_compiles_with_fabemu_p4c(program: Path) -> None:
    doc = _compile(program)
    assert isinstance(doc, dict) and doc.get("pipelines"), "no pipelines in the BMv2 JSON"


def _run_stf(doc: dict, stf_path: Path, **switch_options: int) -> object:
    """Run ``stf_path`` on fabemu's target (a Switch built with ``switch_options``)."""
    stf = pytest.importorskip("emulator.target.stf", reason="emulator.target.stf not built yet")
    run_stf = getattr(stf, "run_stf", None)
    if run_stf is None:
        pytest.skip("emulator.target.stf.run_stf not available yet")
    if not switch_options:
        return run_stf(doc, stf_path)
    from emulator.target.switch import Switch

    return run_stf(doc, stf_path, switch=Switch(doc, **switch_options))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_stf_passes_on_fabemu_target(program: Path) -> None:
    doc = _compile(program)
    result = _run_stf(doc, program.with_suffix(".stf"), **TARGET_OPTIONS.get(program.stem, {}))
    passed = getattr(result, "passed", result)
    assert passed is True, str(result)


def test_priority_out_of_range_is_dropped_with_one_queue() -> None:
    """simple_switch drops a packet whose priority >= its number of queues (default 1)."""
    program = CORPUS / "priority_queues.p4"
    result = _run_stf(_compile(program), program.with_suffix(".stf"), priority_queues=1)
    outputs = getattr(result, "outputs", {})
    assert [len(frames) for frames in outputs.values()] == [1], outputs  # only DSCP 0 leaves


def test_random_hash_algorithm_compiles() -> None:
    """HashAlgorithm.random is compile-only (BMv2 cannot load it): build it with its -D."""
    p4c = pytest.importorskip("emulator.p4c", reason="emulator.p4c not built yet")
    compile_file = getattr(p4c, "compile_file", None)
    if compile_file is None:
        pytest.skip("emulator.p4c.compile_file not available yet")
    doc = compile_file(
        CORPUS / "hashes.p4", include_dirs=(CORPUS,), defines={"WITH_RANDOM_HASH": "1"}
    )
    algos = [c.get("algo") for c in doc.get("calculations", [])]
    assert "random" in algos, f"no calculation uses the random algorithm: {algos}"


@pytest.mark.bmv2
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_compiles_with_reference_p4c(program: Path, tmp_path: Path) -> None:
    """The corpus is standard P4-16: the reference p4c-bm2-ss accepts every program."""
    out = tmp_path / f"{program.stem}.json"
    p4info = tmp_path / f"{program.stem}.p4info.txtpb"
    argv = ["p4c-bm2-ss", "--std", "p4-16", "-I", str(CORPUS), "-o", str(out)]
    argv += ["--p4runtime-files", str(p4info), str(program)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["pipelines"], "p4c-bm2-ss produced no pipelines"


def test_preprocessor_defines_change_behaviour() -> None:
    """-DOUT_PORT=5 -DFLIP moves preprocessor.p4's output to port 5 with fill byte 0xFE."""
    p4c = pytest.importorskip("emulator.p4c", reason="emulator.p4c not built yet")
    switch = pytest.importorskip("emulator.target.switch", reason="emulator.target not built yet")
    doc = p4c.compile_file(
        CORPUS / "preprocessor.p4", include_dirs=(CORPUS,), defines={"OUT_PORT": "5", "FLIP": None}
    )
    frame = bytes.fromhex("00000000000200000000000188b501100000")
    out = switch.Switch(doc).process(0, frame)
    assert out == [(5, bytes.fromhex("00000000000200000000000188b58113fe33"))]
