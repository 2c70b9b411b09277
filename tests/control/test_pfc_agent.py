"""The real-BMv2 PFC agent: register polling turned into set_queue_rate pauses."""

from __future__ import annotations

from emulator.control import PfcAgent
from emulator.control.names import PFC_RX_QUANTA, PFC_RX_SEQ, port_prio_index


class FakeBmv2:
    """Registers readable with register_read; set_queue_rate lines recorded."""

    def __init__(self) -> None:
        self.regs: dict[tuple[str, int], int] = {}
        self.rates: list[str] = []

    def frame(self, port: int, prio: int, quanta: int) -> None:
        i = port_prio_index(port, prio)
        self.regs[(PFC_RX_SEQ, i)] = self.regs.get((PFC_RX_SEQ, i), 0) + 1
        self.regs[(PFC_RX_QUANTA, i)] = quanta

    def cli(self, line: str) -> str:
        words = line.split()
        if words[0] == "register_read":
            return f"{words[1]}[{words[2]}]= {self.regs.get((words[1], int(words[2])), 0)}"
        self.rates.append(line)
        return ""


def test_xoff_throttles_until_the_pause_time_elapses() -> None:
    sw = FakeBmv2()
    agent = PfcAgent(sw, {1: 10e6, 2: 10e6}, priorities=(3,))
    assert agent.poll(0) == []
    sw.frame(2, 3, 100)  # 100 quanta at 10 Mb/s = 5.12 ms
    assert agent.poll(1_000) == ["set_queue_rate 1 2 3"]
    assert agent.next_deadline() == 1_000 + 5_120_000
    assert agent.poll(5_000_000) == []
    assert agent.poll(5_121_000) == ["set_queue_rate 0 2 3"]
    assert agent.paused() == {}


def test_refresh_extends_and_xon_resumes_at_once() -> None:
    sw = FakeBmv2()
    agent = PfcAgent(sw, {4: 1e9}, priorities=(3, 6), normal_rate_pps=5000)
    agent.poll(0)
    sw.frame(4, 6, 1000)  # 512 us at 1 Gb/s
    assert agent.poll(0) == ["set_queue_rate 1 4 6"]
    sw.frame(4, 6, 1000)  # refresh: no new command, later deadline
    assert agent.poll(400_000) == []
    assert agent.paused() == {(4, 6): 912_000}
    sw.frame(4, 6, 0)  # XON
    assert agent.poll(500_000) == ["set_queue_rate 5000 4 6"]
    assert sw.rates == ["set_queue_rate 1 4 6", "set_queue_rate 5000 4 6"]


def test_frames_seen_before_the_agent_started_are_ignored() -> None:
    sw = FakeBmv2()
    sw.frame(1, 3, 500)
    agent = PfcAgent(sw, {1: 10e6})
    assert agent.poll(0) == []
    assert agent.run(lambda: 0, lambda s: None, 0.001, 3) == 0
