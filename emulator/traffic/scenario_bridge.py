"""Turn a scenario's ``workload:`` section into a traffic Workload and RNIC settings.

The scenario schema (``emulator.scenario.schema.Workload``) uses the vocabulary of
:func:`emulator.traffic.workloads.workload_from_dict` plus ``ranks``/``placement``, which pick
hosts from the topology's racks when ``hosts`` is not given. Duck-typed (a pydantic model, a
mapping or any object with those attributes) so this layer does not import the scenario layer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from emulator.errors import UserError
from emulator.traffic import workloads as wl
from emulator.traffic.rnic import RnicConfig

#: scenario workload keys that are not workload_from_dict keys
_PLACEMENT_KEYS = ("ranks", "placement")
#: RnicConfig fields a scenario workload may carry (older/other schemas)
_RNIC_KEYS = {"chunk_bytes": "chunk_bytes", "mtu": "mtu", "cts": "admission"}


def _as_dict(w: Any) -> dict[str, Any]:
    if isinstance(w, Mapping):
        return dict(w)
    if hasattr(w, "model_dump"):
        return dict(w.model_dump())
    return dict(vars(w))


def workload_from_scenario(w: Any, racks: Mapping[str, Sequence[str]]) -> wl.Workload:
    """The traffic Workload described by scenario workload ``w`` on a topology's ``racks``."""
    d = {k: v for k, v in _as_dict(w).items() if v is not None and k not in _RNIC_KEYS}
    known = {h for hosts in racks.values() for h in hosts}
    ranks, placement = d.pop("ranks", None), d.pop("placement", "spread")
    if d.get("kind") in ("allreduce", "alltoall") and not d.get("hosts"):
        d["hosts"] = wl.place(ranks or len(known), racks, placement)
    if "pairs" in d:
        d["pairs"] = [list(p) for p in d["pairs"]]
    named = list(d.get("hosts") or []) + list(d.get("senders") or [])
    named += [h for p in d.get("pairs") or [] for h in p]
    if isinstance(d.get("receiver"), str):
        named.append(d["receiver"])
    unknown = sorted({h for h in named if isinstance(h, str)} - known)
    if unknown:
        raise UserError(f"workload: hosts not in the topology: {unknown}")
    return wl.workload_from_dict(d)


def rnic_config_from_scenario(w: Any, base: RnicConfig | None = None) -> RnicConfig:
    """``base`` with any RNIC settings the scenario workload carries (chunk_bytes, mtu, cts)."""
    d = _as_dict(w)
    changes = {field: d[key] for key, field in _RNIC_KEYS.items() if d.get(key) is not None}
    if "admission" in changes:
        changes["admission"] = bool(changes["admission"])
    return dataclasses.replace(base or RnicConfig(), **changes)
