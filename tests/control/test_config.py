"""Control-plane configuration validation: bad values are UserErrors with precise messages."""

from __future__ import annotations

import pytest

from emulator.control import ControlError, FabricConfig, PfcConfig
from emulator.errors import UserError


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lb_mode": "random"}, "lb_mode 'random'"),
        ({"hash_algos": {"leaf": "md5"}}, "hash_algos\\['leaf'\\] = 'md5'"),
        ({"flowlet_gap_us": -1}, "flowlet_gap_us"),
        ({"dscp_to_tc": ((64, 1),)}, "dscp_to_tc entry \\(64, 1\\)"),
        ({"tc_to_queue": ((0, 8),)}, "tc_to_queue entry \\(0, 8\\)"),
        ({"pfc": PfcConfig(xoff=4, xon=4)}, "need 0 <= xon < xoff"),
        ({"pfc": PfcConfig(quanta=0)}, "pfc.quanta"),
        ({"pfc": PfcConfig(priorities=(9,))}, "pfc.priorities"),
        ({"ecn_thresholds": ((3, 1 << 19),)}, "ecn threshold"),
        ({"queue_depth": 0}, "queue_depth"),
    ],
)
def test_bad_config_is_rejected(kwargs: dict, message: str) -> None:
    with pytest.raises(ControlError, match=message) as info:
        FabricConfig(**kwargs)
    assert isinstance(info.value, UserError)


def test_pfc_refresh_defaults_to_half_the_pause_time() -> None:
    assert PfcConfig(quanta=1000).refresh_for(10e6) == 25600  # 51.2 ms pause at 10 Mb/s
    assert PfcConfig(quanta=1000, refresh_us=7).refresh_for(10e6) == 7
    assert PfcConfig(quanta=1).refresh_for(400e9) == 1  # never 0


def test_hash_defaults_differ_per_tier() -> None:
    cfg = FabricConfig()
    assert (cfg.hash_for("leaf"), cfg.hash_for("spine"), cfg.hash_for("agg")) == (
        "crc16",
        "crc32",
        "crc32",
    )
