"""The scenario's ``faults:`` list (pydantic): what fails, when, and for how long.

    faults:
      - {at_ms: 300, kind: link_down, link: [rtsw0, ctsw0]}
      - {at_ms: 900, kind: link_up, link: [rtsw0, ctsw0]}
      - {at_ms: 300, kind: switch_down, switch: ctsw1}            # every link of ctsw1
      - {at_ms: 100, kind: flap, link: [rtsw0, ctsw0], period_ms: 40, count: 3}
      - {at_ms: 100, kind: loss, link: [rtsw0, ctsw0], probability: 0.01, for_ms: 50}
      - {at_ms: 100, kind: corrupt, link: [rtsw0, ctsw0], probability: 0.01, for_ms: 50}
      - {at_ms: 100, kind: stuck_receiver, host: h3, for_ms: 500}  # PFC storm from h3

Names are checked against the topology by :func:`check_fault_names` (unknown link or switch:
file + key path, exit 2). The run's live controller repairs routes after
``switch.control.detection_delay_us`` (``switch.control.repair: false``: never). Semantics:
docs/faults.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from emulator.errors import UserError

FaultKind = Literal[
    "link_down", "link_up", "switch_down", "switch_up", "flap", "loss", "corrupt", "stuck_receiver"
]
#: which target field each kind names, and which extra fields it needs
_TARGET = {
    "link_down": "link",
    "link_up": "link",
    "flap": "link",
    "loss": "link",
    "corrupt": "link",
    "switch_down": "switch",
    "switch_up": "switch",
    "stuck_receiver": "host",
}
_WINDOWED = ("loss", "corrupt", "stuck_receiver")
#: the largest loss / corruption probability accepted (bounded: a link, not a black hole)
MAX_PROBABILITY = 0.5

Ms = Annotated[float, Field(ge=0, le=600_000, allow_inf_nan=False)]


class Fault(BaseModel):
    """One fault entry of ``faults:``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at_ms: Ms
    kind: FaultKind
    link: tuple[str, str] | None = None
    switch: str | None = None
    host: str | None = None
    #: flap: one down+up cycle lasts period_ms (down for the first half); count cycles
    period_ms: Annotated[float, Field(gt=0, le=600_000)] | None = None
    count: Annotated[int, Field(ge=1, le=1000)] = 1
    #: loss / corrupt: per-frame probability, seeded by the run seed
    probability: Annotated[float, Field(gt=0, le=MAX_PROBABILITY)] | None = None
    #: loss / corrupt / stuck_receiver: how long the impairment lasts
    for_ms: Annotated[float, Field(gt=0, le=600_000)] | None = None

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Fault:
        need = _TARGET[self.kind]
        for name in ("link", "switch", "host"):
            given = getattr(self, name) is not None
            if name == need and not given:
                raise ValueError(f"{self.kind} needs '{name}'")
            if name != need and given:
                raise ValueError(f"{self.kind} takes '{need}', not '{name}'")
        if self.kind == "flap" and self.period_ms is None:
            raise ValueError("flap needs 'period_ms' (one down+up cycle) and 'count'")
        if self.kind in ("loss", "corrupt") and self.probability is None:
            raise ValueError(f"{self.kind} needs 'probability' (0 < p <= {MAX_PROBABILITY})")
        if self.kind in _WINDOWED and self.for_ms is None:
            raise ValueError(f"{self.kind} needs 'for_ms' (how long it lasts)")
        if self.kind not in _WINDOWED and self.for_ms is not None:
            raise ValueError(f"{self.kind} takes no 'for_ms'")
        return self

    @property
    def target(self) -> str:
        """Which field names what fails: ``link``, ``switch`` or ``host``."""
        return _TARGET[self.kind]


FaultList = list[Fault]


def check_fault_names(path: Path | str, faults: Sequence[Fault], topo: Any) -> None:
    """Every named link, switch and host exists in ``topo`` (UserError: file + key path)."""
    switches = {s.name for s in topo.switches}
    hosts = {h.name for h in topo.hosts}
    for i, f in enumerate(faults):
        key = f"{path}: faults[{i}].{f.target}"
        if f.link is not None:
            a, b = f.link
            for n in (a, b):
                if n not in switches and n not in hosts:
                    raise UserError(f"{key}: no node {n!r} in topology {topo.name}")
            if not topo.links_between(a, b):
                raise UserError(f"{key}: no link between {a} and {b} in topology {topo.name}")
        if f.switch is not None and f.switch not in switches:
            raise UserError(f"{key}: no switch {f.switch!r} in topology {topo.name}")
        if f.host is not None and f.host not in hosts:
            raise UserError(f"{key}: no host {f.host!r} in topology {topo.name}")
