"""fabemu topology layer: frozen Clos specs, a pure resolve step, files, pictures, scale.

spec = load_clos("two_rack_2spine")      # or TopologySpec(...)
topo = resolve(spec)                     # ResolvedTopology: hosts, switches, links
"""

from emulator.topology.errors import TopologyError
from emulator.topology.io import load_clos, load_spec, save_spec, spec_from_dict, spec_to_dict
from emulator.topology.resolve import HostNode, Link, Port, ResolvedTopology, SwitchNode, resolve
from emulator.topology.scale import ScaleSpec
from emulator.topology.spec import META_LINK_RATE_BPS, LinkSpec, TopologySpec

__all__ = [
    "META_LINK_RATE_BPS",
    "HostNode",
    "Link",
    "LinkSpec",
    "Port",
    "ResolvedTopology",
    "ScaleSpec",
    "SwitchNode",
    "TopologyError",
    "TopologySpec",
    "load_clos",
    "load_spec",
    "resolve",
    "save_spec",
    "spec_from_dict",
    "spec_to_dict",
]
