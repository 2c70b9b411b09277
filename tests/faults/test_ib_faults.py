"""InfiniBand recovery: a leaf uplink goes down in ibsim, OpenSM re-sweeps (ftree no longer
sees a fat tree and falls back to minhop, as on a real cluster), the new LFTs are installed
by handle, the flows finish; restoring the link restores the original tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.faults.ib_resweep import LiveIbSubnet, lft_diff, lft_handles
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
