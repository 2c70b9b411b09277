"""Run ibsim and the real OpenSM on a topology and read back LIDs and LFTs.

ibsim simulates the fabric's management plane (SMPs) from the rendered net file; OpenSM and
``ibroute`` talk to it through the ``libumad2sim.so`` LD_PRELOAD shim (package
``libumad2sim0``, pulled in by ``ibsim-utils``). Every process is recorded in a
:class:`~emulator.runtime.runstate.RunState` (PID + kernel start time), so it is stopped when
the :class:`IbSubnet` context exits, however it exits, and ``fabemu clean`` finds it if the
owning process was killed.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from emulator.errors import UserError
from emulator.ib.netfile import render_netfile
from emulator.ib.routing import (
    ENGINES,
    IbRouting,
    IbRoutingError,
    parse_ibroute,
    parse_subnet_lst,
)
from emulator.runtime.runstate import RunState
from emulator.topology.resolve import ResolvedTopology

#: executable -> Debian package that provides it
TOOLS = {"ibsim": "ibsim-utils", "opensm": "opensm", "ibroute": "infiniband-diags"}
UMAD2SIM_GLOB = "/usr/lib/*/umad2sim/libumad2sim.so"
_READY = "Network simulator ready"
_counter = itertools.count()


class IbToolsMissing(UserError):
    """An InfiniBand tool (OpenSM, ibsim, infiniband-diags) is not installed."""


@dataclass(frozen=True)
class SmOptions:
    """How OpenSM routes: engine (ftree, updn, minhop) and LMC (2**lmc LIDs per HCA port)."""

    engine: str = "ftree"
    lmc: int = 0
    timeout_s: float = 60.0

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise UserError(f"routing engine {self.engine!r}: choose one of {', '.join(ENGINES)}")
        if not 0 <= self.lmc <= 7:
            raise UserError(f"lmc {self.lmc}: must be 0..7")
        if self.engine == "ftree" and self.lmc:
            raise UserError("OpenSM's ftree engine does not support LMC > 0 (use updn or minhop)")


def find_tools() -> dict[str, str]:
    """Paths of ibsim, opensm, ibroute and libumad2sim.so; IbToolsMissing names the package."""
    found: dict[str, str] = {}
    for exe, pkg in TOOLS.items():
        path = shutil.which(exe) or next(
            (p for d in ("/usr/sbin", "/sbin") if os.access(p := f"{d}/{exe}", os.X_OK)), None
        )
        if path is None:
            raise IbToolsMissing(_missing(exe, pkg))
        found[exe] = path
    libs = sorted(glob.glob(UMAD2SIM_GLOB))
    if not libs:
        raise IbToolsMissing(_missing("libumad2sim.so", "libumad2sim0 (with ibsim-utils)"))
    found["umad2sim"] = libs[0]
    return found


def _missing(what: str, pkg: str) -> str:
    return (
        f"InfiniBand fabric needs {what} from the Debian package {pkg}: "
        "install it with scripts/setup.sh (or apt-get install opensm ibsim-utils "
        "infiniband-diags)"
    )


class IbSubnet:
    """ibsim running ``topo``'s net file; :meth:`route` runs OpenSM once and reads back."""

    def __init__(self, topo: ResolvedTopology, workdir: Path | None = None) -> None:
        self.topo = topo
        self.tools = find_tools()
        self._own_dir = workdir is None
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="fabemu-ib-"))
        self.sock = f"fabemu-ib-{os.getpid()}-{next(_counter)}"
        self.state: RunState | None = None
        self.ibsim: subprocess.Popen[bytes] | None = None
        self._routed = False
        #: the host whose HCA port OpenSM and ibroute use (umad2sim's ``SIM_HOST``)
        self.sm_host = topo.hosts[0].name
        #: keep OpenSM's guid2lid between runs (a re-sweep keeps the LIDs, as a real SM)
        self.keep_lids = False

    def env(self, preload: bool = True) -> dict[str, str]:
        """Environment of every process attached to this simulated fabric."""
        env = dict(os.environ)
        env.update(
            IBSIM_SOCKNAME=self.sock,
            OSM_CACHE_DIR=str(self.dir),
            OSM_TMP_DIR=str(self.dir),
            SIM_HOST=self.sm_host,
        )
        if preload:
            env["LD_PRELOAD"] = self.tools["umad2sim"]
        return env

    def __enter__(self) -> IbSubnet:
        net = self.dir / "fabric.net"
        net.write_text(render_netfile(self.topo))
        self.state = RunState.create(self.sock)
        try:
            self._start_ibsim(net)
        except BaseException:
            self.close(failed=True)
            raise
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(failed=et is not None)

    #: ibsim's console on a pipe (``emulator.faults.ib_resweep``: link changes mid-run)
    console = False

    def _start_ibsim(self, net: Path) -> None:
        log = self.dir / "ibsim.log"
        args = ["-s", str(net)] if self.console else ["-s", "-n", str(net)]
        with log.open("wb") as out:
            self.ibsim = subprocess.Popen(
                [self.tools["ibsim"], *args],
                stdin=subprocess.PIPE if self.console else subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT,
                env=self.env(preload=False), cwd=self.dir,
            )  # fmt: skip
        assert self.state is not None
        self.state.add_pid(self.ibsim.pid, f"ibsim {self.topo.name}")
        deadline = time.monotonic() + 10.0
        while _READY not in log.read_text(errors="replace"):
            if self.ibsim.poll() is not None or time.monotonic() > deadline:
                raise IbRoutingError(f"ibsim did not start on {net}:\n{_tail(log)}")
            time.sleep(0.02)

    def route(self, opts: SmOptions) -> IbRouting:
        """Run OpenSM once (``-o``) with ``opts`` and read back LIDs and all switches' LFTs.

        Once per subnet: a second OpenSM attached to the same ibsim hangs (seen with ibsim
        0.10), so a new routing needs a new :class:`IbSubnet`.
        """
        assert self.state is not None
        if self._routed:
            raise IbRoutingError("this ibsim subnet was already routed; start a new IbSubnet")
        self._routed = True
        for stale in (
            ("opensm-subnet.lst",) if self.keep_lids else ("guid2lid", "opensm-subnet.lst")
        ):
            (self.dir / stale).unlink(missing_ok=True)
        log = self.dir / f"opensm-{opts.engine}.log"
        cmd = [self.tools["opensm"], "-o", "-R", opts.engine, "-l", str(opts.lmc)]
        cmd += ["-f", str(log), "-d0"]
        with (self.dir / "opensm.out").open("wb") as out:
            sm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT, env=self.env(), cwd=self.dir)  # fmt: skip
        self.state.add_pid(sm.pid, f"opensm {opts.engine}")
        try:
            rc = sm.wait(timeout=opts.timeout_s)
        except subprocess.TimeoutExpired:
            sm.kill()
            sm.wait()
            raise IbRoutingError(f"OpenSM did not finish in {opts.timeout_s}s; log {log}") from None
        used = _engine_used(log.read_text(errors="replace"))
        if rc < 0:  # not OpenSM's doing: someone stopped it (a teardown, a user)
            raise IbRoutingError(f"OpenSM ({opts.engine}) was killed by signal {-rc}; log {log}")
        if rc != 0 or used != opts.engine:
            raise IbRoutingError(
                f"OpenSM ({opts.engine}) exited {rc}, routed with {used or 'nothing'}; "
                f"log {log}:\n{_tail(log)}"
            )
        return self._read_back(opts)

    def _read_back(self, opts: SmOptions) -> IbRouting:
        base = parse_subnet_lst((self.dir / "opensm-subnet.lst").read_text())
        lfts: dict[str, dict[int, int]] = {}
        owners: dict[int, str] = {}
        for sw in self.topo.switches:
            res = subprocess.run(
                [self.tools["ibroute"], "-a", str(base[sw.name])], capture_output=True, text=True,
                env=self.env(), cwd=self.dir, timeout=opts.timeout_s, check=False,
            )  # fmt: skip
            name, lft, names = parse_ibroute(res.stdout)
            if name != sw.name:
                raise IbRoutingError(f"ibroute LID {base[sw.name]} answered as {name}")
            lfts[name] = lft
            owners.update(names)
        return IbRouting(opts.engine, opts.lmc, base, lfts, owners)

    def close(self, failed: bool = False) -> None:
        """Stop every recorded process; drop the work dir unless the run failed."""
        if self.ibsim is not None:  # our child: stop and reap it (a zombie looks alive)
            self.ibsim.terminate()
            try:
                self.ibsim.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.ibsim.kill()
                self.ibsim.wait()
            self.ibsim = None
        if self.state is not None:  # anything else recorded (an OpenSM cut short)
            self.state.cleanup()
            self.state = None
        if self._own_dir and not failed:
            shutil.rmtree(self.dir, ignore_errors=True)


def _engine_used(log: str) -> str | None:
    """The engine OpenSM says configured the switches (it silently falls back to minhop)."""
    marker = " tables configured on all switches"
    for line in reversed(log.splitlines()):
        if marker in line:
            return line.split(marker)[0].rsplit(" ", 1)[-1]
    return None


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def compute_routing(topo: ResolvedTopology, opts: SmOptions | None = None) -> IbRouting:
    """Start ibsim, run OpenSM with ``opts``, read back, and stop everything."""
    with IbSubnet(topo) as subnet:
        return subnet.route(opts or SmOptions())
