"""Route and ECMP group computation on the 2- and 4-spine two-rack fabrics."""

from __future__ import annotations

import pytest

from emulator.control import ControlError, FabricController, compute_routes
from emulator.topology import load_clos, resolve


@pytest.fixture(scope="module", params=["two_rack_2spine", "two_rack_4spine"])
def topo(request):
    return resolve(load_clos(request.param))


def test_leaf_routes_hosts_directly_and_other_rack_over_every_spine(topo) -> None:
    routes = compute_routes(topo)
    spines = topo.spec.spines
    leaf = topo.switch("rtsw0")
    r = routes["rtsw0"]
    for port in leaf.host_ports:
        host = topo.host(port.peer)
        (hop,) = r.route(f"{host.ip}/32").next_hops
        assert (hop.port, hop.dmac, hop.peer) == (port.number, host.mac, host.name)
    remote = r.route("10.0.1.0/24")
    assert [h.port for h in remote.next_hops] == [p.number for p in leaf.uplink_ports]
    assert [h.peer for h in remote.next_hops] == [f"ctsw{i}" for i in range(spines)]
    # next-hop MAC = the spine's port facing this leaf
    for hop in remote.next_hops:
        spine = topo.switch(hop.peer)
        (facing,) = [p for p in spine.ports if p.peer == "rtsw0"]
        assert hop.dmac == facing.mac
    assert len(r.routes) == topo.spec.gpus_per_rack + 1


def test_spine_routes_each_rack_down_its_leaf_link(topo) -> None:
    routes = compute_routes(topo)
    for i in range(topo.spec.spines):
        r = routes[f"ctsw{i}"]
        assert [x.prefix for x in r.routes] == ["10.0.0.0/24", "10.0.1.0/24"]
        assert [h.peer for h in r.route("10.0.0.0/24").next_hops] == ["rtsw0"]
        assert [h.peer for h in r.route("10.0.1.0/24").next_hops] == ["rtsw1"]
        assert r.pins == ()


def test_pins_map_remote_hosts_to_their_downlink_index(topo) -> None:
    routes = compute_routes(topo)
    g = topo.spec.gpus_per_rack
    assert routes["rtsw0"].pins == tuple((f"10.0.1.{i + 1}/32", i) for i in range(g))


def test_link_failure_removes_the_member_and_restore_adds_it_back(topo) -> None:
    ctl = FabricController(topo)
    n = topo.spec.spines
    before = [h.peer for h in ctl.selection("rtsw0", "10.0.1.0/24")]
    assert before == [f"ctsw{i}" for i in range(n)]
    diffs = ctl.fail_link("rtsw0", "ctsw1")
    assert set(diffs) == {"rtsw0", "rtsw1", "ctsw1"}
    lost = [f"ctsw{i}" for i in range(n) if i != 1]
    assert [h.peer for h in ctl.selection("rtsw0", "10.0.1.0/24")] == lost
    assert [h.peer for h in ctl.selection("rtsw1", "10.0.0.0/24")] == lost
    # exactly the leaf's uplink member towards ctsw1 leaves the remote rack's group
    state = ctl.states["rtsw0"]
    (to_ctsw1,) = [k for k in state.members if k is not None and k.peer == "ctsw1"]
    group = state.groups["10.0.1.0/24"]
    assert diffs["rtsw0"].splitlines()[1:] == [
        f"act_prof_remove_member_from_group RoceIngress.ecmp_selector {state.members[to_ctsw1]} {group}"
    ]
    # ctsw1 reaches rack 0 only through rtsw1 and another spine now
    assert [h.peer for h in ctl.selection("ctsw1", "10.0.0.0/24")] == ["rtsw1"]
    ctl.restore_link("rtsw0", "ctsw1")
    assert [h.peer for h in ctl.selection("rtsw0", "10.0.1.0/24")] == before
    assert [h.peer for h in ctl.selection("ctsw1", "10.0.0.0/24")] == ["rtsw0"]


def test_isolated_destination_points_at_the_drop_member() -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    ctl = FabricController(topo)
    ctl.fail_link("h1", "rtsw0")
    assert ctl.selection("rtsw0", "10.0.0.2/32") == [None]
    text = ctl.restore_link("h1", "rtsw0")["rtsw0"]
    assert text.splitlines()[1:] == [
        "act_prof_add_member_to_group RoceIngress.ecmp_selector 2 1",
        "act_prof_remove_member_from_group RoceIngress.ecmp_selector 0 1",
    ]


def test_unknown_link_is_a_clear_error() -> None:
    ctl = FabricController(resolve(load_clos("two_rack_2spine")))
    with pytest.raises(ControlError, match="no link between 'rtsw0' and 'rtsw1'"):
        ctl.fail_link("rtsw0", "rtsw1")
    with pytest.raises(ControlError, match="no switch 'nope'"):
        ctl.command_file("nope")


def test_multi_zone_routes_go_through_the_atsws() -> None:
    topo = resolve(load_clos("two_zone_atsw"))
    routes = compute_routes(topo)
    other_zone = [f"10.1.{r}.0/24" for r in range(topo.spec.racks)]
    for prefix in other_zone:
        assert [h.peer for h in routes["rtsw0"].route(prefix).next_hops] == ["ctsw0", "ctsw1"]
        assert [h.peer for h in routes["ctsw0"].route(prefix).next_hops] == ["atsw0", "atsw1"]
        assert [h.peer for h in routes["atsw0"].route(prefix).next_hops] == ["ctsw2", "ctsw3"]
    assert [h.peer for h in routes["ctsw2"].route("10.1.1.0/24").next_hops] == ["rtsw5"]
    assert routes["atsw0"].role == "agg" and routes["atsw0"].pins == ()
