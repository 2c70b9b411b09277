"""InfiniBand recovery: a leaf uplink goes down in ibsim, OpenSM re-sweeps (ftree no longer
sees a fat tree and falls back to minhop, as on a real cluster), the new LFTs are installed
by handle, the flows finish; restoring the link restores the original tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.faults.ib_resweep import LiveIbSubnet, lft_diff, lft_handles
from emulator.ib.routing import IbRoutingError
from emulator.ib.subnet import SmOptions
from emulator.topology import load_clos, resolve

from .scn import children, run

pytestmark = pytest.mark.ib


def test_unlink_resweep_relink_round_trip() -> None:
    topo = resolve(load_clos("two_rack_2spine"))
    with LiveIbSubnet(topo) as sub:
        before, _ = sub.sweep(SmOptions())
        sub.set_link("rtsw0", "ctsw0", up=False)
        after, secs = sub.sweep(SmOptions())
        assert secs > 0 and sub.fallbacks == 1
        assert 3 not in after.lfts["rtsw0"].values()  # nothing routed out of the dead port
        handles = lft_handles(before)
        lines = lft_diff(before.lfts["rtsw0"], after.lfts["rtsw0"], handles["rtsw0"])
        assert lines and all(ln.startswith("table_modify lft forward ") for ln in lines)
        sub.set_link("rtsw0", "ctsw0", up=True)
        again, _ = sub.sweep(SmOptions())
        assert again.lfts == before.lfts
    assert sub.ibsim is None  # stopped on exit


def test_the_sm_hosts_own_link_cut_moves_the_sm_and_keeps_the_lids() -> None:
    """OpenSM sits on h0's HCA port; with h0's link cut it would wait for that port and
    never sweep. The re-sweep runs it on h1 instead, with the LIDs of guid2lid (a standby
    SM taking over); the link back, the tables are the first ones again."""
    topo = resolve(load_clos("two_rack_2spine"))
    opts = SmOptions(timeout_s=20)  # a hang fails here, not after the default 60 s
    with LiveIbSubnet(topo) as sub:
        before, _ = sub.sweep(opts)
        assert sub.sm_host == "h0"
        sub.set_link("h0", "rtsw0", up=False)
        cut, _ = sub.sweep(opts)
        assert sub.sm_host == "h1"
        assert {n: cut.base_lids[n] for n in cut.base_lids} == {
            n: before.base_lids[n] for n in cut.base_lids
        }  # every node still found keeps its LID
        assert "h0" not in cut.base_lids or not cut.lfts["rtsw0"].get(before.base_lids["h0"])
        sub.set_link("h0", "rtsw0", up=True)
        again, _ = sub.sweep(opts)
        assert again.base_lids == before.base_lids and again.lfts == before.lfts
        sub.cut = frozenset(frozenset((h.name, "x")) for h in topo.hosts)
        with pytest.raises(IbRoutingError, match="no port left for the subnet manager"):
            sub.sweep(opts)


def test_ib_link_failure_is_repaired_by_a_resweep(tmp_path: Path) -> None:
    fault = {"at_ms": 40, "kind": "link_down", "link": ["rtsw0", "ctsw0"]}
    before = children()
    out = run(tmp_path, fabric="ib", faults=[fault])
    assert children() <= before  # the live ibsim is stopped with the run
    r = out.result
    assert out.error is None, out.error
    assert r.meta.complete and r.faults is not None
    [rep] = r.faults["repairs"]
    assert rep["installed_ns"] == 60_000_000 and "rtsw0" in rep["switches"]
    assert rep["resweep_s"] > 0 and rep["fault"] == 0
    assert r.faults["faults"][0]["time_to_detect_ms"] == 20.0
