"""The Mininet runtime on the built-in target: a 2-spine fabric (2 racks x 2 hosts)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator.runtime.mininet.fabric import MininetFabric
from emulator.runtime.runstate import STATE_ROOT, same_process

pytestmark = pytest.mark.mininet
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fabric_inputs(tmp_path_factory: pytest.TempPathFactory):
    from emulator.control import FabricController
    from emulator.p4c import compile_file
    from emulator.topology import resolve
    from emulator.topology.io import load_clos

    topo = resolve(load_clos("two_rack_2spine"))
    prog = tmp_path_factory.mktemp("prog") / "roce_fabric.json"
    prog.write_text(json.dumps(compile_file(str(ROOT / "p4" / "roce_fabric.p4"))))
    ctl = FabricController(topo)
    return topo, prog, ctl


def _leftovers(topo) -> list[str]:
    names = [p.intf for s in topo.switches for p in s.ports]
    return [n for n in names if Path(f"/sys/class/net/{n}").exists()]


def test_ping_failover_and_clean_teardown(fabric_inputs) -> None:
    topo, prog, ctl = fabric_inputs
    cmds = {n: ctl.command_file(n) for n in ctl.switch_names}
    fab = MininetFabric(topo, prog, cmds)
    with fab:
        run_dir = fab.run_dir
        assert fab.ping("h0", "h1")  # same rack
        assert fab.ping("h0", "h3") and fab.ping("h2", "h1")  # across the spines
        assert fab.fail_link("rtsw0", "ctsw0") == 1
        fab.apply_commands(ctl.fail_link("rtsw0", "ctsw0"))
        assert all(fab.ping("h0", h) for h in ("h2", "h3"))  # rerouted over ctsw1
        stats = fab.switch_stats()
        assert stats["ctsw1"]["ports"]["1"]["rx_pkts"] > 0
        assert fab.restore_link("rtsw0", "ctsw0") == 1
        fab.apply_commands(ctl.restore_link("rtsw0", "ctsw0"))
        assert fab.ping("h1", "h3")
        switch_pids = [sw.proc.pid for sw in fab.net.switches]
    assert _leftovers(topo) == []
    assert not run_dir.exists() and not run_dir.parent.exists()
    assert all(not Path(f"/proc/{p}").exists() or _zombie_or_reused(p) for p in switch_pids)


def _zombie_or_reused(pid: int) -> bool:
    try:
        return b"emulator" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def test_rnic_allreduce_runs_over_both_spines(fabric_inputs) -> None:
    topo, prog, ctl = fabric_inputs
    cmds = {n: ctl.command_file(n) for n in ctl.switch_names}
    hosts = [h.name for h in topo.hosts]
    with MininetFabric(topo, prog, cmds) as fab:
        reports = fab.run_rnics(
            {"kind": "allreduce", "hosts": hosts, "size_bytes": 32768, "num_qps": 4},
            rnic={"mtu": 1024}, duration_s=20,
        )  # fmt: skip
        stats = fab.switch_stats()
    assert sorted(reports) == hosts
    for name, rep in reports.items():
        assert rep["done"], (name, rep.get("error"))
        assert rep["collective"]["size_bytes"] == 32768
    for spine in ("ctsw0", "ctsw1"):  # E-ECMP over 4 QPs per connection spreads the load
        assert sum(p["tx_pkts"] for p in stats[spine]["ports"].values()) > 0
    assert _leftovers(topo) == []


RUNNER = """
import json, sys, time
from emulator.runtime.mininet.fabric import MininetFabric
from emulator.topology import resolve
from emulator.topology.io import load_clos
from emulator.control import FabricController
topo = resolve(load_clos("two_rack_2spine"))
ctl = FabricController(topo)
fab = MininetFabric(topo, sys.argv[1], {n: ctl.command_file(n) for n in ctl.switch_names})
fab.start()
print("UP", fab.run_id, flush=True)
time.sleep(60)
"""


def test_sigkilled_run_is_removed_by_fabemu_clean(fabric_inputs) -> None:
    topo, prog, _ctl = fabric_inputs
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(prog)], stdout=subprocess.PIPE, cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        line = runner.stdout.readline().decode()  # type: ignore[union-attr]
        assert line.startswith("UP"), line
        run_id = line.split()[1]
        record = json.loads((STATE_ROOT / run_id / "state.json").read_text())
        procs = [(p["pid"], p["start"]) for p in record["pids"]]
        assert len(procs) == len(topo.hosts) + len(topo.switches)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait(timeout=10)
        assert _leftovers(topo)  # the killed run left its fabric behind
        assert all(same_process(pid, start) for pid, start in procs)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait(timeout=10)
        res = subprocess.run(
            [sys.executable, "-m", "emulator", "clean"], capture_output=True, text=True,
            cwd=ROOT, timeout=120,
        )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert f"cleaned {STATE_ROOT / run_id}" in res.stdout
    time.sleep(0.5)
    assert _leftovers(topo) == []
    assert not any(same_process(pid, start) for pid, start in procs)
    assert not (STATE_ROOT / run_id).exists()


@pytest.mark.bmv2
def test_same_fabric_on_real_bmv2(fabric_inputs) -> None:
    topo, prog, ctl = fabric_inputs
    cmds = {n: ctl.command_file(n) for n in ctl.switch_names}
    with MininetFabric(topo, prog, cmds, target="bmv2") as fab:
        assert fab.ping("h0", "h1") and fab.ping("h0", "h3")
        assert fab.switch_stats() == {s.name: {} for s in topo.switches}
    assert _leftovers(topo) == []
