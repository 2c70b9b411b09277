"""The address plan: names, MACs and IPv4 addresses derived from positions, and its limits.

IPv4 (every leaf owns a /24, every zone a /16, so routes summarise per rack and per zone)::

    host  zone z, rack r (within the zone), gpu g  ->  10.z.r.(g+1)/24
    leaf  gateway of rack r in zone z              ->  10.z.r.254
    switch loopback, device id d                   ->  10.255.(d >> 8).(d & 255)/32

MACs are locally administered (first octet 0x02)::

    host with global index i    -> 02:a0:<i as 4 bytes>
    switch device d, port p     -> 02:b0:<d as 2 bytes>:<p as 2 bytes>   (p = 0: router MAC)

The plan is exhausted beyond the limits below; :func:`check_plan` says which one.
"""

from __future__ import annotations

from emulator.topology.errors import TopologyError
from emulator.topology.spec import TopologySpec

MAX_ZONES = 255  # zone octet 0..254; 10.255/16 holds switch loopbacks
MAX_RACKS_PER_ZONE = 256  # rack octet 0..255
MAX_GPUS_PER_RACK = 253  # host octet 1..253; .254 is the leaf gateway
MAX_SWITCHES = 65536  # loopback 10.255.x.y and the 2-byte device field of switch MACs
MAX_PORT = 510  # BMv2 egress_spec is 9 bits and 511 is the drop port
HOST_PORT = 0  # a host's single RNIC port
GATEWAY_OCTET = 254


def host_name(index: int) -> str:
    """Name of the host with global index ``index``."""
    return f"h{index}"


def switch_name(role: str, index: int) -> str:
    """Name of a switch: leaf -> rtswN, spine -> ctswN, agg -> atswN (global per role)."""
    return {"leaf": "rtsw", "spine": "ctsw", "agg": "atsw"}[role] + str(index)


def intf_name(node: str, port: int) -> str:
    """Interface name of ``node``'s port, Mininet style (``rtsw0-eth3``)."""
    return f"{node}-eth{port}"


def host_ip(zone: int, rack: int, gpu: int) -> str:
    """IPv4 address of a host (rack numbered within its zone)."""
    return f"10.{zone}.{rack}.{gpu + 1}"


def gateway_ip(zone: int, rack: int) -> str:
    """IPv4 address of the leaf (gateway) of rack ``rack`` in ``zone``."""
    return f"10.{zone}.{rack}.{GATEWAY_OCTET}"


def rack_subnet(zone: int, rack: int) -> str:
    """The /24 of a rack."""
    return f"10.{zone}.{rack}.0/24"


def zone_subnet(zone: int) -> str:
    """The /16 of a zone."""
    return f"10.{zone}.0.0/16"


def loopback_ip(device_id: int) -> str:
    """Loopback /32 address of a switch."""
    return f"10.255.{device_id >> 8}.{device_id & 255}"


def host_mac(index: int) -> str:
    """MAC of the host with global index ``index``."""
    b = index.to_bytes(4, "big")
    return "02:a0:" + ":".join(f"{x:02x}" for x in b)


def switch_mac(device_id: int, port: int = 0) -> str:
    """MAC of a switch port (port 0: the switch's router MAC)."""
    b = device_id.to_bytes(2, "big") + port.to_bytes(2, "big")
    return "02:b0:" + ":".join(f"{x:02x}" for x in b)


def switch_count(spec: TopologySpec) -> int:
    """Total switches of the resolved topology."""
    return spec.zones * (spec.racks + spec.spines) + (spec.aggs if spec.zones > 1 else 0)


def check_plan(spec: TopologySpec, where: str = "topology") -> None:
    """Raise :class:`TopologyError` if the spec does not fit the address plan."""
    checks = (
        (
            spec.zones > MAX_ZONES,
            f"zones={spec.zones} exceeds the address plan's {MAX_ZONES} (10.<zone>.x.x)",
        ),
        (
            spec.racks > MAX_RACKS_PER_ZONE,
            f"racks={spec.racks} per zone exceeds the address plan's {MAX_RACKS_PER_ZONE} (10.z.<rack>.x)",
        ),
        (
            spec.gpus_per_rack > MAX_GPUS_PER_RACK,
            f"gpus_per_rack={spec.gpus_per_rack} exceeds the address plan's {MAX_GPUS_PER_RACK} "
            "(10.z.r.1-253; .254 is the gateway)",
        ),
        (
            switch_count(spec) > MAX_SWITCHES,
            f"{switch_count(spec)} switches exceed the address plan's {MAX_SWITCHES} device ids",
        ),
    )
    for bad, message in checks:
        if bad:
            raise TopologyError(f"{where}: address plan exhausted: {message}")
