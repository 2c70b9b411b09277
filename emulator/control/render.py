"""Render runtime command files (simple_switch_CLI syntax) with the package's jinja2 templates."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

import jinja2

from emulator.control import names
from emulator.control.config import FabricConfig
from emulator.control.errors import ControlError
from emulator.control.routes import SwitchRoutes
from emulator.control.state import Op
from emulator.templating import package_env

_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


def _env() -> jinja2.Environment:
    return package_env("emulator.control")


def _mac(value: str) -> str:
    mac = value.lower()
    if not _MAC.match(mac):
        raise ControlError(f"not a MAC address: {value!r}")
    return mac


def _prefix(value: str) -> str:
    try:
        return str(ipaddress.IPv4Network(value, strict=True))
    except ValueError as exc:
        raise ControlError(f"not an IPv4 prefix: {value!r} ({exc})") from None


def _uint(value: int, bits: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << bits:
        raise ControlError(f"{what} = {value!r}: expected an integer in [0, 2^{bits})")
    return value


def _ops_context(ops: Sequence[Op]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for op in ops:
        hop = op.next_hop
        out.append(
            {
                "kind": op.kind,
                "member": op.member,
                "group": op.group,
                "prefix": _prefix(op.prefix) if op.prefix else "",
                "port": _uint(hop.port, 9, "port") if hop else None,
                "dmac": _mac(hop.dmac) if hop else None,
                "peer": re.sub(r"[^A-Za-z0-9_.-]", "?", hop.peer) if hop else None,
            }
        )
    return out


def render_switch(routes: SwitchRoutes, config: FabricConfig, ops: Sequence[Op]) -> str:
    """The full command file that programs a fresh switch (``ops`` from ProgramState.program)."""
    pfc = config.pfc
    ports = [_uint(p, 9, "port") for p, _ in routes.port_macs]
    context = {
        "n": names,
        "name": routes.name,
        "role": routes.role,
        "role_id": names.ROLES[routes.role],
        "lb_mode": config.lb_mode,
        "lb_mode_id": names.LB_MODES[config.lb_mode],
        "hash_algo": config.hash_for(routes.role),
        "hash_id": names.HASH_ALGOS[config.hash_for(routes.role)],
        "flowlet_gap_us": _uint(config.flowlet_gap_us, 48, "flowlet_gap_us"),
        "dscp_to_tc": config.dscp_to_tc,
        "tc_to_queue": config.tc_to_queue,
        "port_macs": [(p, _mac(m)) for p, m in routes.port_macs],
        "ops": _ops_context(ops),
        "pins": [(_prefix(p), _uint(v, 16, "pin")) for p, v in routes.pins],
        "ports": ports,
        "mirror_base": names.PFC_MIRROR_BASE,
        "pfc_enabled": pfc.enabled,
        "pfc_priorities": pfc.priorities,
        "pfc_xoff": _threshold(pfc.xoff) if pfc.enabled else pfc.xoff,
        "pfc_xon": _threshold(pfc.xon) if pfc.enabled else pfc.xon,
        "pfc_quanta": pfc.quanta,
        "pfc_refresh_us": pfc.refresh_for(routes.min_rate_bps),
        "ecn_thresholds": config.ecn_thresholds,
        "queue_depth": config.queue_depth,
    }
    return _env().get_template("switch.cli.j2").render(context)


def _threshold(value: int | None) -> int:
    if value is None:
        raise ControlError("PFC thresholds not derived yet (FabricController derives them)")
    return value


def render_ops(switch: str, reason: str, ops: Sequence[Op]) -> str:
    """Commands for a group repair (``ops`` from ProgramState.update)."""
    context = {"n": names, "name": switch, "reason": reason, "ops": _ops_context(ops)}
    return _env().get_template("repair.cli.j2").render(context)


def command_lines(text: str) -> list[str]:
    """The commands of a command file: non-blank lines that are not ``#`` comments."""
    return [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
