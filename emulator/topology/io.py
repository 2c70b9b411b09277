"""Load and save topology files (YAML or JSON) and export resolved topologies.

A file describes either an emulated Clos (``kind: clos``, the default) or a Meta-scale
description for the analytic scaler (``kind: scale``). Unknown keys are rejected with the
file and key path; YAML is read with ``yaml.safe_load``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from emulator.errors import read_text
from emulator.topology.errors import TopologyError
from emulator.topology.scale import ScaleSpec
from emulator.topology.spec import LinkSpec, TopologySpec
from emulator.topology.units import format_delay, format_rate, parse_delay, parse_rate
from emulator.topology.validate import validate

#: where the shipped topology files live (``fabemu topo list``)
TOPOLOGY_DIR = Path(__file__).resolve().parents[2] / "topologies"

_CLOS_INTS = ("zones", "racks", "gpus_per_rack", "spines", "uplinks_per_leaf", "aggs", "radix")
_CLOS_KEYS = {
    "kind",
    "name",
    "description",
    "oversubscription",
    "reference_rate",
    "links",
    *_CLOS_INTS,
}
_CLOS_REQUIRED = ("name", "racks", "gpus_per_rack", "spines", "uplinks_per_leaf")
_LINK_CLASSES = ("host", "fabric", "agg")
_SCALE_INTS = (
    "zones",
    "gpus_per_zone",
    "gpus_per_rack",
    "spines_per_zone",
    "uplinks_per_leaf",
    "aggs",
)
_SCALE_KEYS = {"kind", "name", "description", "oversubscription", "link_rate", *_SCALE_INTS}


def _mapping(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TopologyError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _reject_unknown(data: dict[str, Any], allowed: set[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise TopologyError(
                f"{where}.{key}: unknown key (allowed: {', '.join(sorted(allowed))})"
            )


def _int(data: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if value is None:
        raise TopologyError(f"{where}.{key}: required key missing")
    if isinstance(value, bool) or not isinstance(value, int):
        raise TopologyError(f"{where}.{key}: must be a whole number, got {value!r}")
    return value


def _number(data: dict[str, Any], key: str, where: str, default: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TopologyError(f"{where}.{key}: must be a number, got {value!r}")
    return float(value)


def _str(data: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if value is None:
        raise TopologyError(f"{where}.{key}: required key missing")
    if not isinstance(value, str):
        raise TopologyError(f"{where}.{key}: must be a string, got {value!r}")
    return value


def _link(data: dict[str, Any], where: str) -> LinkSpec:
    _reject_unknown(data, {"rate", "delay"}, where)
    default = LinkSpec()
    return LinkSpec(
        parse_rate(data.get("rate", default.rate_bps), f"{where}.rate"),
        parse_delay(data.get("delay", default.delay_ns), f"{where}.delay"),
    )


def spec_from_dict(data: object, where: str = "topology") -> TopologySpec | ScaleSpec:
    """Build (and validate) a spec from parsed YAML/JSON; ``where`` prefixes error key paths."""
    data = _mapping(data, where)
    kind = data.get("kind", "clos")
    if kind == "scale":
        return _scale_from_dict(data, where)
    if kind != "clos":
        raise TopologyError(f"{where}.kind: must be 'clos' or 'scale', got {kind!r}")
    _reject_unknown(data, _CLOS_KEYS, where)
    for key in _CLOS_REQUIRED:
        if key not in data:
            raise TopologyError(f"{where}.{key}: required key missing")
    links = _mapping(data.get("links", {}), f"{where}.links")
    _reject_unknown(links, set(_LINK_CLASSES), f"{where}.links")
    parsed = {
        c: _link(_mapping(links.get(c, {}), f"{where}.links.{c}"), f"{where}.links.{c}")
        for c in _LINK_CLASSES
    }
    defaults = TopologySpec("x", 1, 1, 1, 1)
    spec = TopologySpec(
        name=_str(data, "name", where),
        racks=_int(data, "racks", where),
        gpus_per_rack=_int(data, "gpus_per_rack", where),
        spines=_int(data, "spines", where),
        uplinks_per_leaf=_int(data, "uplinks_per_leaf", where),
        zones=_int(data, "zones", where, defaults.zones),
        aggs=_int(data, "aggs", where, defaults.aggs),
        oversubscription=_number(data, "oversubscription", where, defaults.oversubscription),
        radix=_int(data, "radix", where, defaults.radix),
        host_link=parsed["host"],
        fabric_link=parsed["fabric"],
        agg_link=parsed["agg"],
        reference_rate_bps=parse_rate(
            data.get("reference_rate", defaults.reference_rate_bps), f"{where}.reference_rate"
        ),
        description=_str(data, "description", where, ""),
    )
    validate(spec, where)
    return spec


def _scale_from_dict(data: dict[str, Any], where: str) -> ScaleSpec:
    _reject_unknown(data, _SCALE_KEYS, where)
    d = ScaleSpec("x")
    spec = ScaleSpec(
        name=_str(data, "name", where),
        description=_str(data, "description", where, ""),
        oversubscription=_number(data, "oversubscription", where, d.oversubscription),
        link_rate_bps=parse_rate(data.get("link_rate", d.link_rate_bps), f"{where}.link_rate"),
        **{k: _int(data, k, where, getattr(d, k)) for k in _SCALE_INTS},
    )
    spec.validate(where)
    return spec


def spec_to_dict(spec: TopologySpec | ScaleSpec) -> dict[str, Any]:
    """The file form of a spec (round-trips through :func:`spec_from_dict`)."""
    if isinstance(spec, ScaleSpec):
        out: dict[str, Any] = {"kind": "scale", "name": spec.name, "description": spec.description}
        out.update({k: getattr(spec, k) for k in _SCALE_INTS})
        out["oversubscription"] = spec.oversubscription
        out["link_rate"] = format_rate(spec.link_rate_bps)
        return out
    link = {
        c: {"rate": format_rate(lk.rate_bps), "delay": format_delay(lk.delay_ns)}
        for c, lk in (
            ("host", spec.host_link),
            ("fabric", spec.fabric_link),
            ("agg", spec.agg_link),
        )
    }
    return {
        "kind": "clos",
        "name": spec.name,
        "description": spec.description,
        **{k: getattr(spec, k) for k in _CLOS_INTS},
        "oversubscription": spec.oversubscription,
        "reference_rate": format_rate(spec.reference_rate_bps),
        "links": link,
    }


def find_topology(name_or_path: str | Path) -> Path:
    """A file path as given, or a shipped topology by name (``two_rack_2spine``)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    for ext in (".yaml", ".yml", ".json"):
        candidate = TOPOLOGY_DIR / f"{name_or_path}{ext}"
        if candidate.exists():
            return candidate
    raise TopologyError(
        f"{name_or_path}: no such topology file or shipped topology (see 'fabemu topo list')"
    )


def load_spec(name_or_path: str | Path) -> TopologySpec | ScaleSpec:
    """Load a topology file (YAML or JSON, by extension; YAML otherwise)."""
    path = find_topology(name_or_path)
    text = read_text(path, "topology", TopologyError)
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        raise TopologyError(
            f"{path}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}"
        ) from None
    except RecursionError:
        raise TopologyError(f"{path}: nested too deeply") from None
    return spec_from_dict(data, str(path))


def load_clos(name_or_path: str | Path) -> TopologySpec:
    """Load a file that must describe an emulated Clos (not a scale description)."""
    spec = load_spec(name_or_path)
    if not isinstance(spec, TopologySpec):
        raise TopologyError(
            f"{name_or_path}: is a scale description (kind: scale), not an emulated Clos"
        )
    return spec


def dump(data: dict[str, Any], fmt: str) -> str:
    """Serialise a plain dict as 'yaml' or 'json'."""
    if fmt == "json":
        return json.dumps(data, indent=2, sort_keys=False) + "\n"
    if fmt == "yaml":
        return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    raise TopologyError(f"unknown format {fmt!r} (yaml or json)")


def save_spec(spec: TopologySpec | ScaleSpec, path: str | Path) -> None:
    """Write a spec file; JSON for ``.json``, YAML otherwise."""
    p = Path(path)
    p.write_text(
        dump(spec_to_dict(spec), "json" if p.suffix == ".json" else "yaml"), encoding="utf-8"
    )
