"""Mininet P4 switch classes: shared argument list, CLI output split, and a ping smoke test."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from emulator.errors import UserError
from emulator.runtime.mininet.switch import (
    Bmv2Switch,
    FabemuSwitch,
    P4ProcessSwitch,
    split_cli_output,
)

PROGRAM = Path(__file__).resolve().parent.parent / "target" / "process_data" / "port_fwd.json"


def _bare(cls: type[P4ProcessSwitch], **attrs: object) -> P4ProcessSwitch:
    """An instance without Mininet's Node setup (which needs root), for argv checks."""
    sw = cls.__new__(cls)
    defaults = dict(
        intfs={0: SimpleNamespace(name="lo"), 2: SimpleNamespace(name="s9-eth2"),
               1: SimpleNamespace(name="s9-eth1")},
        thrift_port=9191, device_id=4, pcap_dir=None, json_path="/p/prog.json",
        priority_queues=8, pfc_ports=(1, 2), port_speeds={1: 25e9}, pfc_consume=True,
        pfc_thresholds=(40, 8), line_rate=True, ib_credits=None, pfc_watchdog_ms=None,
    )  # fmt: skip
    defaults.update(attrs)
    for k, v in defaults.items():
        setattr(sw, k, v)
    return sw


def test_both_classes_share_simple_switch_arguments() -> None:
    common = ["-i", "1@s9-eth1", "-i", "2@s9-eth2", "--thrift-port", "9191",
              "--device-id", "4", "/p/prog.json", "--", "--priority-queues", "8"]  # fmt: skip
    fab = _bare(FabemuSwitch).switch_args()
    bm = _bare(Bmv2Switch, pfc_ports=(), port_speeds={}).switch_args()
    assert bm == common
    assert fab == [*common, "--pfc-ports", "1,2", "--port-speed", "1@2.5e+10", "--pfc-consume",
                   "--pfc-xoff", "40", "--pfc-xon", "8", "--line-rate"]  # fmt: skip
    assert FabemuSwitch.binary[1:] == ("-m", "emulator", "switch")
    assert Bmv2Switch.binary == ("simple_switch",)


def test_pfc_watchdog_reaches_the_builtin_target_only() -> None:
    args = _bare(FabemuSwitch, pfc_watchdog_ms=200.0).switch_args()
    assert args[-2:] == ["--pfc-watchdog-ms", "200"]
    with pytest.raises(UserError, match="simple_switch"):  # (or: not on PATH)
        Bmv2Switch("s1", json_path="/p/prog.json", pfc_watchdog_ms=200.0)


def test_ib_credits_reach_the_builtin_target_only() -> None:
    args = _bare(FabemuSwitch, pfc_ports=(), pfc_thresholds=None, ib_credits=16384).switch_args()
    assert args[-2:] == ["--ib-credits", "16384"]
    with pytest.raises(UserError, match="simple_switch"):  # (or: not on PATH)
        Bmv2Switch("s1", json_path="/p/prog.json", ib_credits=16384)


def test_single_queue_bmv2_has_no_target_options() -> None:
    args = _bare(Bmv2Switch, priority_queues=1, pcap_dir="/tmp/pc").switch_args()
    assert args[-2:] == ["--pcap=/tmp/pc", "/p/prog.json"]


def test_split_cli_output() -> None:
    bmv2_style = (
        "Obtaining JSON from switch...\nDone\nControl utility for runtime P4 table "
        "manipulation\nRuntimeCmd: Adding entry\nhandle 0\nRuntimeCmd: \nRuntimeCmd: "
    )
    assert split_cli_output(bmv2_style, 2) == ["Adding entry\nhandle 0", ""]
    assert split_cli_output("RuntimeCmd: a\n", 2) == ["a", ""]


def test_bmv2_skips_the_builtin_targets_extension_lines(monkeypatch) -> None:
    """simple_switch_CLI never sees `mirroring_set_priority`; outputs stay one per line."""
    from emulator.runtime.mininet import switch as mod

    sent: list[str] = []

    def fake_run(argv, *, input, **_kw):  # subprocess.run keywords
        sent.append(input)
        return SimpleNamespace(returncode=0, stdout="RuntimeCmd: one\nRuntimeCmd: two\n")

    monkeypatch.setattr(mod.subprocess, "run", fake_run)
    sw = _bare(Bmv2Switch)
    lines = ["mirroring_add 101 1", "mirroring_set_priority 101 7", "table_add t a 1 => 2"]
    assert sw.cli_commands(lines) == ["one", "", "two"]
    assert sent == ["mirroring_add 101 1\ntable_add t a 1 => 2\n"]


def _switch_core_available() -> bool:
    try:
        import emulator.target.switch  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.mininet
@pytest.mark.skipif(not _switch_core_available(), reason="switch core not built yet")
def test_fabemu_switch_pings_between_two_hosts(tmp_path: Path) -> None:
    from mininet.net import Mininet

    net = Mininet(controller=None, autoSetMacs=True, waitConnected=False)
    sw_name = f"fz{os.getpid() % 9000 + 1000}"  # unique: its veths live in the root netns
    try:
        h1 = net.addHost("fzh1", ip="10.77.0.1/24")
        h2 = net.addHost("fzh2", ip="10.77.0.2/24")
        s = net.addSwitch(sw_name, cls=FabemuSwitch, json_path=str(PROGRAM),
                          log_file=str(tmp_path / "sw.log"))  # fmt: skip
        net.addLink(h1, s, port2=1)
        net.addLink(h2, s, port2=2)
        net.start()
        out = s.cli_commands(
            ["table_add MyIngress.fwd MyIngress.set_port 1 => 2",
             "table_add MyIngress.fwd MyIngress.set_port 2 => 1"]
        )  # fmt: skip
        assert len(out) == 2
        loss = net.ping([h1, h2], timeout="2")
        assert loss == 0.0, (tmp_path / "sw.log").read_text()
        pid = s.pid_of_switch
        assert pid is not None
    finally:
        net.stop()
    assert not os.path.exists(f"/proc/{pid}") or _is_zombie_free(pid)
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f"{sw_name}-eth" not in links


def _is_zombie_free(pid: int) -> bool:
    """True if ``pid`` was reused by an unrelated process (ours is gone)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True
    return b"emulator" not in cmd


@pytest.mark.bmv2
@pytest.mark.mininet
def test_bmv2_switch_pings_between_two_hosts(tmp_path: Path) -> None:
    assert shutil.which("simple_switch")
    from mininet.net import Mininet

    net = Mininet(controller=None, autoSetMacs=True, waitConnected=False)
    try:
        h1 = net.addHost("bzh1", ip="10.78.0.1/24")
        h2 = net.addHost("bzh2", ip="10.78.0.2/24")
        s = net.addSwitch(f"bz{os.getpid() % 9000 + 1000}", cls=Bmv2Switch,
                          json_path=str(PROGRAM), log_file=str(tmp_path / "sw.log"))  # fmt: skip
        net.addLink(h1, s, port2=1)
        net.addLink(h2, s, port2=2)
        net.start()
        s.cli_commands(
            ["table_add MyIngress.fwd MyIngress.set_port 1 => 2",
             "table_add MyIngress.fwd MyIngress.set_port 2 => 1"]
        )  # fmt: skip
        assert net.ping([h1, h2], timeout="2") == 0.0
    finally:
        net.stop()
