"""Topology files: shipped files load, bad files are rejected with file + key path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emulator.topology import ScaleSpec, TopologyError, TopologySpec, load_clos, load_spec, resolve
from emulator.topology.io import TOPOLOGY_DIR, dump, save_spec, spec_from_dict, spec_to_dict
from emulator.topology.units import format_delay, format_rate, parse_delay, parse_rate

SHIPPED = sorted(p.stem for p in TOPOLOGY_DIR.glob("*.yaml"))
GOOD = {"name": "x", "racks": 2, "gpus_per_rack": 2, "spines": 2, "uplinks_per_leaf": 2}


def test_expected_files_are_shipped() -> None:
    assert set(SHIPPED) >= {
        "two_rack_2spine",
        "two_rack_4spine",
        "ai_zone_small",
        "two_zone_atsw",
        "meta_24k",
        "meta_100k",
    }


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_files_load_and_round_trip(name: str, tmp_path: Path) -> None:
    spec = load_spec(name)
    assert spec.name == name
    for suffix in (".yaml", ".json"):
        out = tmp_path / f"{name}{suffix}"
        save_spec(spec, out)
        assert load_spec(out) == spec
    if isinstance(spec, TopologySpec):
        assert resolve(spec).hosts


def test_ai_zone_small_shape() -> None:
    spec = load_clos("ai_zone_small")
    assert (spec.racks, spec.gpus_per_rack, spec.spines, spec.hosts) == (8, 4, 4, 32)
    assert spec.host_link.rate_bps == 10_000_000 and spec.host_link.delay_ns == 1000


def test_load_clos_rejects_scale_description() -> None:
    with pytest.raises(TopologyError, match="is a scale description"):
        load_clos("meta_24k")


def _write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_unknown_keys_name_file_and_key_path(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "name: x\nracks: 2\ngpus_per_rack: 2\nspines: 2\nuplinks_per_leaf: 2\nspine: 3\n"
    )
    with pytest.raises(TopologyError, match=rf"^{path}\.spine: unknown key \(allowed: .*spines"):
        load_spec(path)
    nested = dict(GOOD, links={"host": {"rate": "1Mbps", "speed": 3}})
    with pytest.raises(
        TopologyError, match=r"^f\.links\.host\.speed: unknown key \(allowed: delay, rate\)"
    ):
        spec_from_dict(nested, "f")
    with pytest.raises(TopologyError, match=r"f\.links\.core: unknown key"):
        spec_from_dict(dict(GOOD, links={"core": {}}), "f")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"racks": 2}, r"f\.name: required key missing"),
        ({k: v for k, v in GOOD.items() if k != "spines"}, r"f\.spines: required key missing"),
        (dict(GOOD, racks="two"), r"f\.racks: must be a whole number, got 'two'"),
        (dict(GOOD, racks=True), r"f\.racks: must be a whole number"),
        (dict(GOOD, oversubscription="x"), r"f\.oversubscription: must be a number"),
        (dict(GOOD, kind="torus"), r"f\.kind: must be 'clos' or 'scale'"),
        (dict(GOOD, links=[1]), r"f\.links: expected a mapping, got list"),
        (
            dict(GOOD, links={"host": {"rate": "10 furlongs"}}),
            r"f\.links\.host\.rate: unknown rate unit",
        ),
        (
            dict(GOOD, links={"host": {"delay": "soon"}}),
            r"f\.links\.host\.delay: cannot parse delay",
        ),
        (dict(GOOD, spines=0), r"^f: spines must be a whole number >= 1"),
        ([1, 2], r"^f: expected a mapping, got list"),
        ({"kind": "scale", "name": "s", "zones": 0}, r"f: zones must be a whole number >= 1"),
        ({"kind": "scale", "name": "s", "racks": 3}, r"f\.racks: unknown key"),
        (
            {"kind": "scale", "name": "s", "gpus_per_zone": 100},
            "not a multiple of gpus_per_rack=16",
        ),
    ],
)
def test_bad_documents(data: object, message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        spec_from_dict(data, "f")


def test_bad_yaml_json_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TopologyError, match="not valid YAML"):
        load_spec(_write(tmp_path, "name: [unclosed\n"))
    with pytest.raises(TopologyError, match="not valid JSON"):
        load_spec(_write(tmp_path, "{nope", "t.json"))
    with pytest.raises(TopologyError, match="no such topology file or shipped topology"):
        load_spec(tmp_path / "missing.yaml")


def test_yaml_is_safe_loaded(tmp_path: Path) -> None:
    path = _write(tmp_path, "!!python/object/apply:os.system ['true']\n")
    with pytest.raises(TopologyError, match="not valid YAML"):
        load_spec(path)


def test_json_file_loads(tmp_path: Path) -> None:
    path = _write(
        tmp_path, json.dumps(dict(GOOD, links={"fabric": {"rate": 1e9, "delay": 250}})), "t.json"
    )
    spec = load_clos(path)
    assert spec.fabric_link.rate_bps == 10**9 and spec.fabric_link.delay_ns == 250


def test_units() -> None:
    assert parse_rate("10Mbps") == 10**7 and parse_rate("400Gbps") == 4 * 10**11
    assert parse_rate("2.5 gbps") == 25 * 10**8 and parse_rate(1000) == 1000
    assert parse_delay("1us") == 1000 and parse_delay("2ms") == 2 * 10**6 and parse_delay(7) == 7
    assert format_rate(10**7) == "10Mbps" and format_rate(1500) == "1500bps"
    assert format_delay(1000) == "1us" and format_delay(1500) == "1500ns"
    with pytest.raises(TopologyError, match="not a bool"):
        parse_rate(True)
    with pytest.raises(TopologyError, match="must be a number or a string, got list"):
        parse_delay([1])


def test_scale_counts_meta_24k() -> None:
    spec = load_spec("meta_24k")
    assert isinstance(spec, ScaleSpec)
    c = spec.counts()
    assert c["gpus"] == 24576 and spec.racks_per_zone == 192
    assert c["switches"] == {"rtsw": 1536, "ctsw": 128, "atsw": 18}
    assert c["links"] == {"host": 24576, "rtsw_ctsw": 24576, "ctsw_atsw": 8 * 16 * 28}
    assert c["oversubscription"]["actual"] == pytest.approx(192 / 28)
    rate = 400 * 10**9
    assert c["bisection_bps"]["zone"] == 3072 * rate // 2
    assert c["bisection_bps"]["cluster"] == 4 * 16 * 28 * rate
    assert c["ports"]["ctsw"] == 192 + 28


def test_scale_single_zone_and_100k() -> None:
    one = ScaleSpec("one", zones=1, aggs=0)
    one.validate()
    c = one.counts()
    assert c["switches"]["atsw"] == 0 and c["links"]["ctsw_atsw"] == 0
    assert c["bisection_bps"]["cluster"] == c["bisection_bps"]["zone"]
    big = load_spec("meta_100k")
    assert isinstance(big, ScaleSpec) and big.gpus == 98304 >= 24576 * 4


def test_resolved_export_is_serialisable() -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    data = json.loads(dump(topo.to_dict(), "json"))
    assert data["spec"] == spec_to_dict(topo.spec)
    assert data["hosts"][0]["ip"] == "10.0.0.1"
    assert data["links"][0] == {
        "a": "h0", "a_port": 0, "b": "rtsw0", "b_port": 1, "rate_bps": 10**7, "delay_ns": 1000, "kind": "host",
    }  # fmt: skip
    with pytest.raises(TopologyError, match="unknown format"):
        dump({}, "xml")
