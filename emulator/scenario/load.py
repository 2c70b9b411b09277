"""Load and validate scenario files: one clear message naming file, key path and expectation."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from emulator.errors import UserError, read_text
from emulator.scenario.schema import Scenario


class ScenarioError(UserError):
    """A scenario file that cannot be used; the message names the file and key path."""


def _key_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts) or "(top level)"


def _describe(err: Mapping[str, Any]) -> str:
    kind, msg = err.get("type", ""), str(err.get("msg", ""))
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "missing item" if isinstance(err["loc"][-1], int) else "required key is missing"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
    msg = msg.removeprefix("Value error, ")
    return f"{msg} (got {shown})" if "input" in err and kind != "value_error" else msg


def format_validation_error(path: Path | str, exc: ValidationError) -> str:
    """Render pydantic errors as ``file: key.path: what was expected`` lines."""
    lines = [f"{path}: {_key_path(tuple(e['loc']))}: {_describe(e)}" for e in exc.errors()]
    return "\n".join(lines)


def apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Set dotted keys (``switch.lb=eecmp``) in a copy of the raw scenario mapping."""
    out: dict[str, Any] = yaml.safe_load(yaml.safe_dump(data))  # deep copy of plain data
    for dotted, value in overrides.items():
        node = out
        keys = dotted.split(".")
        for key in keys[:-1]:
            nxt = node.get(key)
            if nxt is None:
                nxt = node[key] = {}
            if not isinstance(nxt, dict):
                raise ScenarioError(f"--set {dotted}: '{key}' is not a mapping")
            node = nxt
        node[keys[-1]] = value
    return out


#: short names accepted by ``--vary`` / ``--set`` / the pytest fixture
ALIASES = {
    "lb": "switch.lb",
    "hash": "switch.hash",
    "qps": "workload.num_qps",
    "kind": "workload.kind",
    "algorithm": "workload.algorithm",
    "placement": "workload.placement",
    "pfc": "switch.pfc.enabled",
    "ecn": "switch.ecn.enabled",
    "sport": "rnic.udp_sport",
    "routing": "ib.routing",
    "ar": "ib.adaptive_routing",
    "adaptive_routing": "ib.adaptive_routing",
    "lmc": "ib.lmc",
}


def parse_set(items: list[str] | None) -> dict[str, Any]:
    """Parse ``key=value`` strings; values are YAML scalars (``true``, ``3``, ``eecmp``)."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ScenarioError(f"--set expects key=value, got {item!r}")
        try:
            out[ALIASES.get(key, key)] = yaml.safe_load(raw)
        except (yaml.YAMLError, RecursionError):
            raise ScenarioError(
                f"--set {key}: value is not a YAML scalar or list: {raw!r}"
            ) from None
    return out


def load_scenario(path: Path | str, overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Read, override and validate a scenario file; raise ScenarioError on any problem."""
    path = Path(path)
    data = read_yaml(path, "scenario")
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: (top level): expected a mapping of scenario keys")
    if overrides:
        data = apply_overrides(data, overrides)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(path, exc)) from None
    program = ("ib.program", scenario.ib.program) if scenario.fabric == "ib" else (
        "switch.program", scenario.switch.program)  # fmt: skip
    for key, rel in (("topology", scenario.topology), program):
        if rel is None:
            continue
        if not _is_file(resolve_path(path, rel)):
            raise ScenarioError(f"{path}: {key}: file not found: {rel}")
    _check_expect(path, scenario)
    return scenario


def read_yaml(path: Path, what: str) -> Any:
    """Safe-load a YAML file; unreadable, non-UTF-8, malformed or too deeply nested YAML is a
    ScenarioError naming the file (and line:column where known)."""
    text = read_text(path, what, ScenarioError)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ScenarioError(f"{path}{where}: not valid YAML: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"{path}: (top level): YAML nested too deeply") from None


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte in it
        return False


def _check_expect(path: Path, sc: Scenario) -> None:
    """Every ``expect:`` key must name a metric a run can produce."""
    from emulator.scenario.metrics import METRIC_NAMES

    for name in sc.expect:
        if name not in METRIC_NAMES:
            what = "empty metric name" if not name.strip() else f"unknown metric {name!r}"
            raise ScenarioError(
                f"{path}: expect.{name}: {what} (metrics: {', '.join(sorted(METRIC_NAMES))})"
            )


def resolve_path(scenario_path: Path | str, rel: str) -> Path:
    """A path named in a scenario, taken relative to the scenario file's folder."""
    p = Path(rel)
    return p if p.is_absolute() else (Path(scenario_path).parent / p).resolve()
