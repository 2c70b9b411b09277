"""``fabemu switch`` process without root: options, control commands, clean signal exit."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from emulator.errors import UserError
from emulator.target.control_client import run_commands
from emulator.target.options import add_arguments, options_from_args
from emulator.target.pcap import PcapWriter, read_pcap
from emulator.target.process import SwitchProcess, load_program
from emulator.target.tm import TrafficManager


def parse(argv: list[str]):
    p = argparse.ArgumentParser()
    add_arguments(p)
    return options_from_args(p.parse_args(argv))


def test_simple_switch_style_arguments() -> None:
    o = parse(
        ["-i", "1@veth1", "--interface", "2@veth2", "--thrift-port", "9191", "--device-id", "3",
         "--log-console", "--pcap", "/tmp/p", "--nanolog", "ipc:///tmp/bm-0-log.ipc",
         "prog.json", "--", "--priority-queues", "8", "--pfc-ports", "1,2",
         "--port-speed", "1@25e9", "--pfc-consume", "--pfc-xoff", "40", "--pfc-xon", "8"]
    )  # fmt: skip
    assert o.interfaces == ((1, "veth1"), (2, "veth2"))
    assert (o.thrift_port, o.device_id, o.pcap_dir, o.program) == (9191, 3, "/tmp/p", "prog.json")
    assert (o.priority_queues, o.pfc_ports) == (8, (1, 2))
    assert o.speed(1) == 25e9 and o.speed(2) == 10e9
    assert o.pfc_consume and not parse(["p.json"]).pfc_consume
    assert (o.pfc_xoff, o.pfc_xon) == (40, 8)
    assert parse(["p.json", "--", "--line-rate"]).line_rate and not o.line_rate
    assert any("--nanolog" in n for n in o.notes)
    assert o.pfc_watchdog_ms is None
    wd = parse(["p.json", "--", "--pfc-ports", "1", "--pfc-watchdog-ms", "200"])
    assert wd.pfc_watchdog_ms == 200.0


@pytest.mark.parametrize(
    ("argv", "msg"),
    [
        (["-i", "veth1", "p.json"], "PORT@IFACE"),
        (["-i", "x@veth1", "p.json"], "integer"),
        (["-i", "511@veth1", "p.json"], "0..510"),
        (["-i", "1@a", "-i", "1@b", "p.json"], "twice"),
        (["-i", "1@a", "-i", "2@a", "p.json"], "twice"),
        (["-i", "1@" + "x" * 16, "p.json"], "not a valid interface"),
        (["p.json", "--", "--priority-queues", "0"], "1..32"),
        (["p.json", "--", "--port-speed", "1@fast"], "PORT@BPS"),
        (["p.json", "--", "--bogus"], "unknown target option"),
        (["--thrift-port", "70000", "p.json"], "thrift-port"),
        (["p.json", "--", "--pfc-ports", "1", "--pfc-xon", "3"], "needs --pfc-xoff"),
        (["p.json", "--", "--pfc-ports", "1", "--pfc-xoff", "3", "--pfc-xon", "3"], "xon < xoff"),
        (["p.json", "--", "--pfc-xoff", "3"], "needs --pfc-ports"),
        (["p.json", "--", "--pfc-watchdog-ms", "200"], "pfc-watchdog-ms"),
        (["p.json", "--", "--pfc-ports", "1", "--pfc-watchdog-ms", "0"], "pfc-watchdog-ms"),
        ([], "missing the program"),
    ],
)
def test_bad_arguments_are_user_errors(argv: list[str], msg: str) -> None:
    with pytest.raises(UserError, match=msg):
        parse(argv)


def test_load_program_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="cannot read"):
        load_program(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,\n oops}')
    with pytest.raises(UserError, match=r"bad.json:2:2: not valid JSON"):
        load_program(str(bad))
    bad.write_text("[1]")
    with pytest.raises(UserError, match="is an object"):
        load_program(str(bad))


def test_pcap_writer_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "x.pcap"
    with PcapWriter(path) as w:
        w.write(b"\x01" * 60, ts_ns=1_500_000_123_456_789)
        w.write(b"\x02" * 1514, ts_ns=1_500_000_124_000_000)
    frames = read_pcap(path)
    assert frames == [
        (1_500_000_123_456_000, b"\x01" * 60),
        (1_500_000_124_000_000, b"\x02" * 1514),
    ]


class FakeSwitch:
    """Stands in for emulator.target.switch.Switch: echoes CLI lines, records its setup."""

    def __init__(
        self, program, *, device_id, priority_queues, clock, port_speed_bps, **extra
    ) -> None:
        self.program = program
        self.extra = extra
        self.device_id = device_id
        self.tm = TrafficManager(clock, priority_queues)
        self.lines: list[str] = []

    def add_port(self, port: int, speed: float) -> None:
        self.tm.add_port(port, speed)

    def receive(self, port: int, frame: bytes) -> list[int]:
        return []

    def transmit_ready(self, port: int) -> int | None:
        return None

    def transmit(self, port: int) -> bytes | None:
        return None

    def cli(self, line: str) -> str:
        if line.startswith("bad"):
            raise UserError("bad command")
        self.lines.append(line)
        return f"did {line}"


def test_process_serves_commands_and_exits_on_signal(tmp_path: Path) -> None:
    prog = tmp_path / "p.json"
    prog.write_text(json.dumps({"program": "fake"}))
    with socket.socket() as s:  # find a free port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    opts = parse(
        ["--thrift-port", str(port), str(prog), "--", "--priority-queues", "4", "--pfc-consume"]
    )
    proc = SwitchProcess(opts, switch_factory=FakeSwitch)
    results: dict[str, object] = {}

    def drive() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                results["replies"] = run_commands(
                    port,
                    ["table_add t a 1 => 2", "bad x", "set_pfc 1 on", "set_pfc 1 maybe",
                     "set_pfc_thresholds 1 10 2", "set_pfc_thresholds 1 x", "show_tm_stats",
                     "show_ports", "show_stats_json"],
                )  # fmt: skip
                break
            except UserError:
                time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)  # handled by the process: clean stop

    t = threading.Thread(target=drive)
    t.start()
    assert proc.run() == 0
    t.join(5)
    replies = results["replies"]
    oks = [r.ok for r in replies]  # type: ignore[attr-defined]
    assert oks == [True, False, True, False, True, False, True, True, True]
    stats = json.loads(replies[8].output)  # type: ignore[index]
    assert stats["queues"]["1:0"]["enqueued"] == 0 and stats["ports"] == {}
    assert replies[7].output.startswith("port # | iface name")  # type: ignore[index]
    assert replies[0].output == "did table_add t a 1 => 2"  # type: ignore[index]
    assert proc.switch.tm.pfc.enabled(1)
    assert "port 1 prio 0: enq 0 deq 0 drop 0" in replies[6].output  # type: ignore[index]
    for i in range(10):  # thresholds took effect: the 10th arrival from port 1 -> XOFF
        proc.switch.tm.enqueue(1, 0, i, 64, ingress_port=1)
    assert proc.switch.tm.control_pending() == [1]
    assert proc.switch.program == {"program": "fake"}
    assert proc.switch.extra == {"pfc_to_pipeline": False}
    line = SwitchProcess(parse([str(prog), "--", "--line-rate"]), switch_factory=FakeSwitch)
    assert line.switch.extra["tm"].serialize
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass  # control port closed after exit
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_log_file_and_notes(tmp_path: Path) -> None:
    from emulator.target import process

    log_path = tmp_path / "sw.log"
    opts = parse(["--log-file", str(log_path), "-L", "info", "--nanolog", "ipc://x", "p.json"])
    process._setup_logging(opts)
    try:
        process.log.info("hello %d", 7)
        process.log.debug("not at info level")
        for h in process.log.handlers:
            h.flush()
        text = log_path.read_text()
        assert "[INFO] hello 7" in text and "not at info level" not in text
    finally:
        for h in process.log.handlers:
            h.close()
        process.log.handlers.clear()
    with pytest.raises(UserError, match="--log-file"):
        process._setup_logging(parse(["--log-file", str(tmp_path / "no/such/dir/x"), "p.json"]))


def test_pfc_watchdog_option_arms_the_traffic_manager(tmp_path: Path) -> None:
    prog = tmp_path / "p.json"
    prog.write_text(json.dumps({"program": "fake"}))
    argv = [str(prog), "--", "--pfc-ports", "1", "--pfc-watchdog-ms", "50"]
    proc = SwitchProcess(parse(argv), switch_factory=FakeSwitch)
    assert proc.switch.tm.pfc.watchdog_ns == 50_000_000
    assert proc.stats()["pfc_watchdog"] == {"storms": 0, "ignored_pauses": 0}
    plain = SwitchProcess(parse([str(prog)]), switch_factory=FakeSwitch)
    assert plain.switch.tm.pfc.watchdog_ns is None and "pfc_watchdog" not in plain.stats()


class FakePort:
    """A RawPort that records what the process sends."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sent: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.sent.append(frame)


def test_the_io_loop_renews_a_pause_on_the_mac_timer(tmp_path: Path) -> None:
    """`fabemu switch` reports the PFC frames it sends to the TM and sends the refreshes
    due (the same pfc_refresh code as the virtual runtime), then stops after the XON."""
    from emulator.vocab.pfc import decode_pfc, quanta_to_ns

    prog = tmp_path / "p.json"
    prog.write_text(json.dumps({"program": "fake"}))
    argv = [str(prog), "--", "--pfc-ports", "1", "--pfc-xoff", "3", "--pfc-xon", "1"]
    proc = SwitchProcess(parse(argv), switch_factory=FakeSwitch)
    tm = proc.switch.tm
    wire = FakePort(1)
    proc.ports[1] = wire  # type: ignore[assignment]
    for i in range(3):
        tm.enqueue(2, 0, i, 64, ingress_port=1)
    proc._drain()
    assert [decode_pfc(f).quanta[0] for f in wire.sent] == [0xFFFF]  # type: ignore[union-attr]
    half = quanta_to_ns(0xFFFF, 10e9) // 2
    due = tm.control_timer()
    assert due is not None and 0 < due - proc.clock() <= half
    nxt = proc._drain()
    assert nxt is not None and nxt <= due and len(wire.sent) == 1  # not yet
    proc._t0 -= 3 * half  # three half pauses later, the queue still full
    proc._drain()
    proc._t0 -= 3 * half
    proc._drain()
    assert [decode_pfc(f).quanta[0] for f in wire.sent] == [0xFFFF] * 3  # type: ignore[union-attr]
    assert tm.pfc_refresh.refreshes == 2
    while tm.dequeue(2) is not None:  # drained to XON: resume, no more refreshes
        pass
    proc._drain()
    assert decode_pfc(wire.sent[-1]).quanta[0] == 0  # type: ignore[union-attr]
    assert tm.control_timer() is None and proc.pfc_tx[1] == 4
