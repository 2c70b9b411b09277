"""Real OpenSM on ibsim: LIDs and LFTs read back give shortest, loop-free paths (networkx)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest

from emulator.ib.routing import IbRouting
from emulator.ib.subnet import IbSubnet, SmOptions, compute_routing
from emulator.runtime.runstate import proc_start_time
from emulator.topology import load_clos, resolve
from emulator.topology.resolve import ResolvedTopology

pytestmark = pytest.mark.ib

CASES = [
    ("two_rack_4spine", SmOptions("ftree")),
    ("two_rack_4spine", SmOptions("updn")),
    ("two_rack_4spine", SmOptions("minhop")),
    ("two_rack_4spine", SmOptions("updn", lmc=1)),
    ("two_rack_4spine", SmOptions("minhop", lmc=2)),
    ("two_zone_atsw", SmOptions("ftree")),
    ("two_zone_atsw", SmOptions("updn")),
    ("two_zone_atsw", SmOptions("minhop")),
]


def _check_shortest(topo: ResolvedTopology, routing: IbRouting) -> int:
    """Walk every host pair x every destination LID; return how many paths were checked."""
    g = nx.Graph(topo.graph())
    checked = 0
    for src in topo.hosts:
        for dst in topo.hosts:
            if src.name == dst.name:
                continue
            want = nx.shortest_path_length(g, src.name, dst.name) - 1  # switches crossed
            for dlid in routing.lids(dst.name):
                hops = routing.walk(topo, src.name, dlid)  # raises on a loop / dead end
                assert len(hops) == want, (src.name, dst.name, dlid, hops)
                checked += 1
    return checked


@pytest.mark.parametrize(("topology", "opts"), CASES, ids=lambda v: getattr(v, "engine", v))
def test_lfts_are_shortest_and_loop_free(topology: str, opts: SmOptions) -> None:
    topo = resolve(load_clos(topology))
    routing = compute_routing(topo, opts)
    assert routing.engine == opts.engine
    assert set(routing.lfts) == {s.name for s in topo.switches}
    n = len(topo.hosts)
    assert _check_shortest(topo, routing) == n * (n - 1) << opts.lmc
    # every LID is distinct and every host has 2**lmc of them
    lids = [lid for node in routing.base_lids for lid in routing.lids(node)]
    assert len(lids) == len(set(lids))
    assert all(len(routing.lids(h.name)) == 1 << opts.lmc for h in topo.hosts)


def test_lmc_lids_take_different_spines() -> None:
    """With LMC 1, the two LIDs of a remote host leave the leaf by different uplinks."""
    topo = resolve(load_clos("two_rack_4spine"))
    routing = compute_routing(topo, SmOptions("updn", lmc=1))
    lid_a, lid_b = routing.lids("h7")
    assert routing.walk(topo, "h0", lid_a)[0] != routing.walk(topo, "h0", lid_b)[0]


def test_ftree_spreads_destinations_over_spines() -> None:
    """ftree gives each remote destination of a leaf its own uplink, round robin."""
    topo = resolve(load_clos("two_rack_4spine"))
    routing = compute_routing(topo, SmOptions("ftree"))
    leaf = topo.switch("rtsw0")
    remote = [h for h in topo.hosts if h.leaf != "rtsw0"]
    ports = [routing.lfts["rtsw0"][routing.base_lids[h.name]] for h in remote]
    up = {p.number for p in leaf.uplink_ports}
    assert set(ports) == up  # all uplinks used, none unused


def test_a_subnet_is_routed_once() -> None:
    from emulator.ib.routing import IbRoutingError

    with IbSubnet(resolve(load_clos("two_rack_2spine"))) as subnet:
        subnet.route(SmOptions("minhop"))
        with pytest.raises(IbRoutingError, match="already routed"):
            subnet.route(SmOptions("updn"))


def test_processes_stopped_even_on_failure(tmp_path: Path) -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    pids: list[int] = []
    # a failed subnet keeps its work dir (logs): here pytest's, not one more in /tmp
    with pytest.raises(RuntimeError), IbSubnet(topo, workdir=tmp_path) as subnet:
        assert subnet.ibsim is not None
        pids.append(subnet.ibsim.pid)
        assert subnet.state is not None and subnet.state.path.exists()
        record = subnet.state.path
        raise RuntimeError("boom")
    assert proc_start_time(pids[0]) is None
    assert not record.exists()
    assert not os.path.exists(f"/proc/{pids[0]}")


def test_fabemu_clean_stops_ibsim_of_a_killed_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner dies with SIGKILL (no __exit__): its ibsim is found and stopped by clean."""
    from emulator.runtime import runstate

    env = dict(os.environ, FABEMU_STATE_DIR=str(tmp_path))
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from emulator.ib.subnet import IbSubnet\n"
        "from emulator.topology import load_clos, resolve\n"
        "s = IbSubnet(resolve(load_clos('two_rack_2spine')), workdir=Path(sys.argv[1])).__enter__()\n"
        "print(s.ibsim.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    workdir = tmp_path / "ib"  # the killed owner's work dir: pytest's, not one more in /tmp
    workdir.mkdir()
    owner = subprocess.Popen([sys.executable, "-c", code, str(workdir)], stdout=subprocess.PIPE,
                             env=env, text=True)  # fmt: skip
    try:
        assert owner.stdout is not None
        ibsim_pid = int(owner.stdout.readline())
    finally:
        owner.kill()
        owner.wait()
    assert proc_start_time(ibsim_pid) is not None  # orphaned, still running
    monkeypatch.setattr(runstate, "STATE_ROOT", tmp_path)
    stale = runstate.stale_runs()
    assert [p["what"] for st in stale for p in st.pids] == ["ibsim two_rack_2spine"]
    for st in stale:
        st.cleanup()
    deadline = time.monotonic() + 5
    while proc_start_time(ibsim_pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)  # an orphan is reaped by init, not by us
    assert proc_start_time(ibsim_pid) is None
