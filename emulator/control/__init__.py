"""fabemu control layer: program roce_fabric.p4 switches from a topology, repair on failures.

routes   shortest-path routes and ECMP next hops per switch (networkx)
state    action-selector member/group handles, and the diff between two route sets
render   jinja2 templates -> simple_switch_CLI command files
apply    CommandSink protocol (anything with .cli(line) -> str) and apply_commands
controller  FabricController: initial command files, fail_link / restore_link repairs
pfc_agent   PFC emulation for real BMv2 (set_queue_rate while paused)
"""

from emulator.control.apply import CommandSink, apply_commands
from emulator.control.config import FabricConfig, PfcConfig
from emulator.control.controller import FabricController
from emulator.control.errors import CommandFailed, ControlError
from emulator.control.pfc_agent import PfcAgent
from emulator.control.routes import NextHop, Route, SwitchRoutes, compute_routes

__all__ = [
    "CommandFailed",
    "CommandSink",
    "ControlError",
    "FabricConfig",
    "FabricController",
    "NextHop",
    "PfcAgent",
    "PfcConfig",
    "Route",
    "SwitchRoutes",
    "apply_commands",
    "compute_routes",
]
