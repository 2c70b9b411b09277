"""The routes' breadth-first search gives networkx's shortest-path lengths."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.control.routes import compute_routes, hop_distances, link_id, switch_graph
from emulator.topology import load_clos, resolve

EDGES = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(edges=EDGES, source=st.integers(0, 11))
def test_hop_distances_equal_networkx(edges: list[tuple[int, int]], source: int) -> None:
    """Any graph (loops, parallel edges, unreachable nodes): same reach, same hop counts."""
    g = nx.Graph()
    g.add_nodes_from(range(12))
    g.add_edges_from(edges)
    adjacency = {n: set(g.neighbors(n)) for n in g.nodes}
    assert hop_distances(adjacency, source) == nx.single_source_shortest_path_length(g, source)


def test_switch_graph_drops_failed_links_and_hosts() -> None:
    """Hosts are not nodes; a failed leaf-spine link is gone from both ends."""
    topo = resolve(load_clos("two_rack_4spine"))
    full = switch_graph(topo)
    assert set(full) == {s.name for s in topo.switches}
    link = next(lk for lk in topo.links if lk.kind != "host")
    routes = compute_routes(topo)
    cut = switch_graph(topo, [link_id(link.a, link.a_port, link.b, link.b_port)])
    assert link.b in full[link.a] and link.b not in cut[link.a] and link.a not in cut[link.b]
    assert routes and hop_distances(full, link.a)[link.b] == 1
