"""The Mininet runtime: a ResolvedTopology as Mininet hosts and P4 switch processes.

    hosts (own netns, Mininet)          switches (root netns, one process each)
    h0 h0-eth0 ══ veth ══ rtsw0-eth1 ── FabemuSwitch | Bmv2Switch ── rtsw0-eth3 ══ ctsw0-eth1
       10.0.0.1/32, default via the leaf gateway (static ARP)      control: 127.0.0.1:<port>

    fab = MininetFabric(topo, "prog.json", commands={"rtsw0": [...], ...}, target="fabemu")
    with fab:                                   # start(): build, launch, program, configure
        fab.ping("h0", "h3")
        reports = fab.run_rnics(workload_dict, rnic={"mtu": 1024}, duration_s=10)
        fab.fail_link("rtsw0", "ctsw1"); fab.apply_commands(diff); fab.restore_link(...)
        stats = fab.switch_stats()
    # stop() always runs (exceptions, Ctrl-C, SIGTERM); a SIGKILLed run: `fabemu clean`

Link rates: every link of the spec runs at its scaled-down rate (400 Gb/s / N, e.g. 10 Mb/s).
The built-in target serialises each egress port at that rate (``--line-rate`` +
``--port-speed``) and the RNICs pace at their host link rate, so queues, PFC and ECN build
up where they would at full scale; BMv2 gets ``set_queue_rate`` per port (packets/s at
``BMV2_FRAME_BYTES``-byte frames) as BMv2 users usually do. No tc/netem shaping is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.errors import UserError
from emulator.runtime.links import link_exists, set_link_state
from emulator.runtime.mininet.switch import Bmv2Switch, FabemuSwitch, P4ProcessSwitch
from emulator.runtime.runstate import STATE_ROOT, RunState
from emulator.runtime.statedir import take_run_lock
from emulator.target.cli_values import parse_counter
from emulator.target.ops import Comment, SwitchOp
from emulator.topology import ResolvedTopology
from emulator.traffic.workloads import workload_from_dict
from emulator.vocab import WIRE_OVERHEAD_BYTES

BMV2_FRAME_BYTES = (
    1024 + WIRE_OVERHEAD_BYTES
)  # frame + wire overhead used to turn rates into packets/s
_TARGETS: dict[str, type[P4ProcessSwitch]] = {
    "fabemu": FabemuSwitch,
    "builtin": FabemuSwitch,  # the name a RunPlan uses for the built-in target
    "bmv2": Bmv2Switch,
}
RUN_LOCK = "mininet.lock"  # in STATE_ROOT: one Mininet run at a time on this machine
RUN_LOCK_WAIT_S = 300.0
Program = str | Path | Mapping[str, Any]  # a BMv2 JSON file, or the JSON document itself


def _take_run_lock() -> int:
    """Wait (bounded) for the machine-wide Mininet run lock; return its fd (close = release)."""
    return take_run_lock(STATE_ROOT, RUN_LOCK, RUN_LOCK_WAIT_S)


class MininetFabric:
    """One running emulated fabric in Mininet; a context manager that always tears down."""

    def __init__(
        self,
        topo: ResolvedTopology,
        program_json: Program | Mapping[str, Program],
        commands: Mapping[str, str | Sequence[str | SwitchOp]],
        *,
        target: str = "fabemu",
        priority_queues: int = 8,
        pfc: bool = True,
        run_dir: str | Path | None = None,
        pcap_dir: str | None = None,
        ib_credits: int | None = None,
        pfc_watchdog_ms: float | None = None,
    ) -> None:
        """``program_json``: one program for every switch, or a mapping switch -> program
        (each a JSON file path or the JSON document). ``ib_credits``: InfiniBand credit flow
        control with this receive buffer per (port, VL) in bytes, on the built-in target."""
        if target not in _TARGETS:
            raise UserError(f"unknown switch target {target!r} (fabemu or bmv2)")
        if ib_credits is not None and _TARGETS[target] is not FabemuSwitch:
            raise UserError(
                "InfiniBand credit flow control needs the built-in target: BMv2 simple_switch "
                "has no link-level flow control"
            )
        missing = [s.name for s in topo.switches if s.name not in commands]
        if missing:
            raise UserError(f"no runtime commands for switch(es): {', '.join(missing)}")
        self.topo = topo
        per_switch = isinstance(program_json, Mapping) and all(
            s.name in program_json for s in topo.switches
        )
        self._programs: dict[str, Program] = {
            s.name: (program_json[s.name] if per_switch else program_json)  # type: ignore[index]
            for s in topo.switches
        }
        self.pcap_dir = pcap_dir
        self.commands = {k: self._lines(v) for k, v in commands.items()}
        self.target = target
        self.priority_queues = priority_queues
        self.pfc = pfc
        self.ib_credits = ib_credits
        self.pfc_watchdog_ms = pfc_watchdog_ms
        self.run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
        # run files (logs, RNIC configs/reports) go away with the run unless run_dir is given
        self.run_dir = Path(run_dir) if run_dir else STATE_ROOT / self.run_id / "files"
        self.net: Any = None
        self.state: RunState | None = None
        self._old_sigterm: Any = None
        self._lock_fd: int | None = None

    @staticmethod
    def _lines(v: str | Sequence[str | SwitchOp]) -> list[str]:
        """Command lines: the text as given, typed operations rendered (the process needs text)."""
        if isinstance(v, str):
            return v.splitlines()
        return [x if isinstance(x, str) else x.cli() for x in v if not isinstance(x, Comment)]

    # -- lifecycle -----------------------------------------------------------------------

    def __enter__(self) -> MininetFabric:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Build the network, start and program every switch, configure every host."""
        if os.geteuid() != 0:
            raise UserError("the Mininet runtime needs root")
        self._lock_fd = _take_run_lock()
        try:  # from here on, any failure releases the lock and removes what exists
            taken = [p.intf for s in self.topo.switches for p in s.ports if link_exists(p.intf)]
            if taken:
                raise UserError(
                    f"interface {taken[0]} already exists: another fabemu run is active, or a "
                    "killed one left it behind (run `fabemu clean`)"
                )
            self.state = RunState.create(self.run_id)  # the state dirs first: mode 0700
            self.run_dir.mkdir(parents=True, exist_ok=True)
            self.program_files = self._write_programs()
            if _in_main_thread():  # SIGTERM -> orderly teardown
                self._old_sigterm = signal.signal(signal.SIGTERM, _sigterm_to_exit)
            self._build()
            self._start_switches()
            self._program()
            self._configure_hosts()
        except BaseException:
            self.stop()
            raise

    def _build(self) -> None:
        from mininet.net import Mininet

        assert self.state is not None
        net = Mininet(
            controller=None, build=False, autoSetMacs=False, autoStaticArp=False,
            waitConnected=False,
        )  # fmt: skip
        self.net = net
        cls = _TARGETS[self.target]
        for h in self.topo.hosts:
            node = net.addHost(h.name, ip=None)
            self.state.add_pid(node.pid, f"mininet host {h.name}")  # its shell runs already
            # before its interface exists: no IPv6 link-local, so no MLD/RS/DAD frames that
            # the fabric program would drop (they showed as drops in the conservation)
            node.cmd(
                "sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1"
            )
        for s in self.topo.switches:
            params: dict[str, Any] = dict(
                json_path=self.program_files[s.name], device_id=s.device_id, pcap_dir=self.pcap_dir,
                priority_queues=self.priority_queues, wait_on_start=False,
                log_file=str(self.run_dir / f"{s.name}.log"),
            )  # fmt: skip
            if cls is FabemuSwitch:
                params.update(
                    pfc_ports=[p.number for p in s.ports] if self.pfc else [],
                    port_speeds=s.port_speeds_bps,
                    line_rate=True,
                    ib_credits=self.ib_credits,
                    pfc_watchdog_ms=self.pfc_watchdog_ms if self.pfc else None,
                )
            net.addSwitch(s.name, cls=cls, **params)
        # recorded before Mininet creates them (addLink makes the veth at once): a run killed
        # half-way through the loop leaves nothing `fabemu clean` does not know of
        self.state.add_links([p.intf for s in self.topo.switches for p in s.ports])
        for link in self.topo.links:
            a, b = (link.a, link.a_port), (link.b, link.b_port)
            net.addLink(
                a[0], b[0], port1=a[1], port2=b[1],
                intfName1=self._intf(*a), intfName2=self._intf(*b),
                addr1=self._mac(*a), addr2=self._mac(*b),
            )  # fmt: skip
        net.build()
        for s in self.topo.switches:  # no IPv6 chatter from the root namespace into the fabric
            for p in s.ports:
                with contextlib.suppress(OSError):
                    Path(f"/proc/sys/net/ipv6/conf/{p.intf}/disable_ipv6").write_text("1")

    def _write_programs(self) -> dict[str, str]:
        """A JSON file per distinct program (documents are written into the run dir)."""
        files: dict[str, str] = {}
        written: dict[str, str] = {}
        for name, prog in self._programs.items():
            if isinstance(prog, Mapping):
                text = json.dumps(prog, sort_keys=True)
                key = hashlib.sha256(text.encode()).hexdigest()[:16]
                if key not in written:
                    path = self.run_dir / f"program-{key}.json"
                    path.write_text(text)
                    written[key] = str(path)
                files[name] = written[key]
            else:
                path = Path(prog).resolve()
                if not path.is_file():
                    raise UserError(f"switch {name}: program file {path} does not exist")
                files[name] = str(path)
        return files

    def _intf(self, node: str, port: int) -> str:
        if self.topo.is_host(node):
            return self.topo.host(node).port.intf
        return self.topo.switch(node).port(port).intf

    def _mac(self, node: str, port: int) -> str:
        if self.topo.is_host(node):
            return self.topo.host(node).mac
        return self.topo.switch(node).port(port).mac

    def _start_switches(self) -> None:
        assert self.state is not None
        self.net.start()  # launches every switch process without waiting
        for sw in self.net.switches:
            if sw.proc is not None:
                self.state.add_pid(sw.proc.pid, f"switch {sw.name}")
        for sw in self.net.switches:
            sw.wait_ready()

    def _program(self) -> None:
        from emulator.control.apply import apply_commands
        from emulator.target.control_client import ControlConnection

        for s in self.topo.switches:
            lines = list(self.commands[s.name])
            sw = self.net.get(s.name)
            if isinstance(sw, Bmv2Switch):
                rate = [f"set_queue_rate {max(1, int(p.rate_bps / (8 * BMV2_FRAME_BYTES)))} "
                        f"{p.number}" for p in s.ports]  # fmt: skip
                outs = sw.cli_commands(lines + rate)
                bad = [o for o in outs if o.lstrip().lower().startswith(("error", "invalid"))]
                if bad:
                    raise UserError(f"{s.name}: simple_switch_CLI rejected a command: {bad[0]}")
                continue
            with ControlConnection(sw.thrift_port) as conn:
                apply_commands(conn, lines, where=s.name)

    def _configure_hosts(self) -> None:
        for h in self.topo.hosts:
            node = self.net.get(h.name)
            dev = h.port.intf
            for cmd in (
                "sysctl -qw net.ipv6.conf.all.disable_ipv6=1",
                f"ip addr flush dev {dev}",
                f"ip addr add {h.ip}/32 dev {dev}",
                f"ip link set {dev} up",
                f"ip route add {h.gateway_ip}/32 dev {dev}",
                f"ip route add default via {h.gateway_ip} dev {dev}",
                f"ip neigh replace {h.gateway_ip} lladdr {h.gateway_mac} dev {dev} nud permanent",
            ):
                node.cmd(cmd)

    def stop(self) -> None:
        """Tear everything down (idempotent): switches by PID, hosts, links, the record."""
        net, self.net = self.net, None
        try:
            if net is not None:
                with contextlib.suppress(Exception):  # half-built: the run record finishes
                    net.stop()
        finally:
            if self.state is not None:
                self.state.cleanup()
                self.state = None
            if self._old_sigterm is not None:
                signal.signal(signal.SIGTERM, self._old_sigterm)
                self._old_sigterm = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the run lock
                self._lock_fd = None

    # -- operations ------------------------------------------------------------------------

    def _need_net(self) -> Any:
        if self.net is None:
            raise UserError("the fabric is not running (call start())")
        return self.net

    def ping(self, a: str, b: str, count: int = 3, timeout_s: int = 2) -> bool:
        """Kernel ping from host ``a`` to host ``b``; True if any reply came back."""
        node = self._need_net().get(a)
        out = node.cmd(f"ping -c {int(count)} -i 0.2 -W {int(timeout_s)} {self.topo.host(b).ip}")
        return " 0 received" not in out and "received" in out

    def apply_commands(self, commands: Mapping[str, str | Sequence[str]]) -> None:
        """Push more runtime commands (e.g. a control-plane repair diff) to running switches."""
        from emulator.control.apply import apply_commands
        from emulator.target.control_client import ControlConnection

        net = self._need_net()
        for name, text in commands.items():
            sw = net.get(name)
            lines = self._lines(text)
            if isinstance(sw, Bmv2Switch):
                sw.cli_commands(lines)
                continue
            with ControlConnection(sw.thrift_port) as conn:
                apply_commands(conn, lines, where=name)

    def switch_cli(self, switch: str, line: str) -> str:
        """One runtime command on a running switch; its output (UserError if rejected)."""
        from emulator.target.control_client import ControlConnection

        if not any(s.name == switch for s in self.topo.switches):
            raise UserError(f"no switch {switch!r} in topology {self.topo.name}")
        sw = self._need_net().get(switch)
        if isinstance(sw, Bmv2Switch):
            return sw.cli_commands([line])[0]
        with ControlConnection(sw.thrift_port) as conn:
            return conn.cli(line)

    def counter_packets(self, switch: str, name: str, indices: Iterable[int]) -> list[int]:
        """Packet counts of indirect counter ``name`` at ``indices`` (``counter_read``)."""
        lines = [f"counter_read {name} {int(i)}" for i in indices]
        sw = self._need_net().get(switch)
        if isinstance(sw, Bmv2Switch):
            outs = sw.cli_commands(lines)
        else:
            from emulator.target.control_client import ControlConnection

            with ControlConnection(sw.thrift_port) as conn:
                outs = [conn.cli(line) for line in lines]
        found = [parse_counter(o) for o in outs]
        return [v[1] if v else 0 for v in found]

    def _set_link(self, a: str, b: str, state: str) -> int:
        net = self._need_net()
        links = self.topo.links_between(a, b)
        if not links:
            raise UserError(f"no link between {a} and {b}")
        switches = {s.name for s in self.topo.switches}
        for link in links:
            for node, port in ((link.a, link.a_port), (link.b, link.b_port)):
                intf = self._intf(node, port)
                if node in switches:  # switch interfaces live in the root namespace
                    set_link_state(intf, state == "up")
                    if self.ib_credits is not None:  # IB credits: the process must know
                        self.switch_cli(node, f"set_port_link {port} {state}")
                else:  # a host's, inside its own namespace
                    net.get(node).cmd(f"ip link set dev {shlex.quote(intf)} {state}")
        return len(links)

    def fail_link(self, a: str, b: str) -> int:
        """Take every link between ``a`` and ``b`` down (both ends); returns how many."""
        return self._set_link(a, b, "down")

    def restore_link(self, a: str, b: str) -> int:
        """Bring the links between ``a`` and ``b`` back up."""
        return self._set_link(a, b, "up")

    def switch_stats(self) -> dict[str, dict[str, Any]]:
        """Per switch counters (``show_stats_json``; empty for BMv2, which has no such call)."""
        if _TARGETS[self.target] is not FabemuSwitch:
            return {s.name: {} for s in self.topo.switches}
        from emulator.target.control_client import ControlConnection

        out = {}
        for s in self.topo.switches:
            with ControlConnection(self._need_net().get(s.name).thrift_port) as conn:
                out[s.name] = json.loads(conn.cli("show_stats_json"))
        return out

    def start_rnics(
        self,
        workload: Mapping[str, Any],
        *,
        rnic: Mapping[str, Any] | None = None,
        duration_s: float = 10.0,
        start_at_ns: int | None = None,
        seed: int = 0,
        conn_id_base: int = 0,
        hosts: Iterable[str] | None = None,
        framing: Mapping[str, Any] | None = None,
        start_file: Path | None = None,
    ) -> dict[str, subprocess.Popen[bytes]]:
        """Start one ``rnic_process`` per host of the workload (not waiting); by host.

        All start their ranks at ``start_at_ns`` (CLOCK_MONOTONIC; default now + 1 s).
        ``start_file``: a start barrier instead (``emulator.traffic.start_barrier``).
        ``framing``: the RNICs' wire format (``IbFraming.to_dict()``; None: RoCEv2); with
        ``ib_credits`` set on the fabric the RNICs also keep IB credits with their leaf.
        """
        from emulator.traffic.rnic_process import process_config

        net = self._need_net()
        assert self.state is not None
        names = set(hosts) if hosts is not None else set(workload_from_dict(workload).hosts)
        chosen = [h for h in self.topo.hosts if h.name in names]
        ips = {h.name: h.ip for h in self.topo.hosts}
        start_at = start_at_ns if start_at_ns is not None else time.monotonic_ns() + 10**9
        procs: dict[str, subprocess.Popen[bytes]] = {}
        for h in chosen:
            out = self.run_dir / f"rnic-{h.name}.json"
            out.unlink(missing_ok=True)
            cfg = process_config(
                h, h.port.intf, ips, workload, str(out), rnic=rnic, start_at_ns=start_at,
                duration_s=duration_s, seed=seed, conn_id_base=conn_id_base,
                framing=framing, ib_credits=self.ib_credits,
                start_file=None if start_file is None else str(start_file),
            )  # fmt: skip
            cfg_path = self.run_dir / f"rnic-{h.name}.cfg.json"
            cfg_path.write_text(json.dumps(cfg))
            with open(self.run_dir / f"rnic-{h.name}.log", "wb") as log:
                p = net.get(h.name).popen(
                    [sys.executable, "-m", "emulator.traffic.rnic_process", str(cfg_path)],
                    stdout=log, stderr=subprocess.STDOUT,
                )  # fmt: skip
            procs[h.name] = p
            self.state.add_pid(p.pid, f"rnic {h.name}")
        return procs

    def collect_rnics(
        self, procs: Mapping[str, subprocess.Popen[bytes]], timeout_s: float = 0.0
    ) -> dict[str, dict[str, Any]]:
        """Wait up to ``timeout_s`` for the RNIC processes, stop the rest (SIGTERM: they
        still write their report), and return the reports by host."""
        deadline = time.monotonic() + timeout_s
        for p in procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
        for p in procs.values():
            if p.poll() is None:
                p.terminate()
        for p in procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        reports: dict[str, dict[str, Any]] = {}
        for name in procs:
            path = self.run_dir / f"rnic-{name}.json"
            try:
                reports[name] = json.loads(path.read_text())
            except (OSError, ValueError):
                tail = (self.run_dir / f"rnic-{name}.log").read_text(errors="replace")[-2000:]
                reports[name] = {"done": False, "error": f"no report; log tail:\n{tail}"}
        return reports

    def run_rnics(
        self,
        workload: Mapping[str, Any],
        *,
        rnic: Mapping[str, Any] | None = None,
        duration_s: float = 10.0,
        start_delay_s: float = 1.0,
        seed: int = 0,
        hosts: Iterable[str] | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Run one ``rnic_process`` per host of the workload to completion; reports by host."""
        procs = self.start_rnics(
            workload, rnic=rnic, duration_s=duration_s, seed=seed, hosts=hosts,
            start_at_ns=time.monotonic_ns() + int(start_delay_s * 1e9),
        )  # fmt: skip
        return self.collect_rnics(procs, timeout_s=start_delay_s + duration_s + 30)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _sigterm_to_exit(_signum: int, _frame: object) -> None:
    raise SystemExit(143)  # unwinds through `with MininetFabric(...)`: teardown runs
