"""Path choices equal the switch program's hash definition; loads are conserved."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.errors import UserError
from emulator.scaler.model.fabric import meta_fabric
from emulator.scaler.model.flowkeys import IP_PROTO_UDP, ROCEV2_UDP_PORT, flow_keys
from emulator.scaler.model.routing import choose_paths, expand_qps, link_loads
from emulator.target.hashes import v1model_hash

FABRIC = meta_fabric(24_576)


def _scalar_fields(keys, i: int, with_qp: bool) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    f = [
        (int(keys.src_ip[i]), 32),
        (int(keys.dst_ip[i]), 32),
        (IP_PROTO_UDP, 8),
        (int(keys.sport[i]), 16),
        (ROCEV2_UDP_PORT, 16),
    ]
    return [*f, (int(keys.dst_qpn[i]), 24)] if with_qp else f


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 24_575), st.integers(0, 24_575)), min_size=1, max_size=12),
    st.sampled_from(["ecmp", "eecmp"]),
    st.integers(1, 8),
    st.integers(0, 2**16),
)
def test_ecmp_choices_equal_v1model_hash(
    pairs: list[tuple[int, int]], mode: str, qps: int, seed: int
) -> None:
    src, dst = (np.array(c, dtype=np.int64) for c in zip(*pairs))
    k = qps if mode == "eecmp" else 1
    fs, fd, qp = expand_qps(src, dst, k)
    ch = choose_paths(FABRIC, mode, fs, fd, qp, k, slot=3, seed=seed)
    keys = flow_keys(FABRIC, fs, fd, 3, qp, k, seed)
    for i in range(len(fs)):
        fields = _scalar_fields(keys, i, mode == "eecmp")
        leaf = v1model_hash("crc16", fields, 0, 65536)
        spine = v1model_hash("crc32", fields, 0, 65536)
        assert ch["u"][i] == leaf % FABRIC.uplinks_per_leaf
        assert ch["a"][i] == spine % FABRIC.aggs
        assert ch["s2"][i] == spine % FABRIC.spines


def test_pinning_uses_destination_slice_and_ib_static_is_d_mod_k() -> None:
    src = np.arange(0, 64, dtype=np.int64)
    dst = (src + 5000) % FABRIC.gpus
    pin = choose_paths(FABRIC, "pinning", src, dst, np.zeros_like(src), 1, 0, 0)
    assert np.array_equal(pin["u"], (dst % 16) % FABRIC.uplinks_per_leaf)
    ib = meta_fabric(24_576, "ib")
    st_ = choose_paths(ib, "ib_static", src, dst, np.zeros_like(src), 1, 0, 0)
    assert np.array_equal(st_["u"], dst % 32)
    assert np.array_equal(st_["a"], (dst // 32) % ib.aggs)


@pytest.mark.parametrize("mode", ["ecmp", "eecmp", "pinning"])
def test_loads_are_conserved(mode: str) -> None:
    rng = np.random.default_rng(3)
    src = rng.integers(0, FABRIC.gpus, 2000)
    dst = (src + rng.integers(1, FABRIC.gpus, 2000)) % FABRIC.gpus
    loads = link_loads(FABRIC, mode, src, dst, qps=4, seed=1)
    off_rack = (src // 16 != dst // 16).sum()
    cross = (src // 3072 != dst // 3072).sum()
    assert loads.load["nic_up"].sum() == pytest.approx(2000)
    assert loads.load["leaf_up"].sum() == pytest.approx(off_rack)
    assert loads.load["leaf_down"].sum() == pytest.approx(off_rack)
    assert loads.load["spine_up"].sum() == pytest.approx(cross)
    assert loads.load["agg_down"].sum() == pytest.approx(cross)
    k = 4 if mode == "eecmp" else 1
    assert loads.count["leaf_up"].sum() == off_rack * k
    assert loads.slowdown() >= 1.0


def test_adaptive_spreads_evenly_and_never_loses_to_static() -> None:
    ib = meta_fabric(24_576, "ib")
    rng = np.random.default_rng(5)
    src = rng.permutation(ib.gpus)[:3000]
    dst = rng.permutation(ib.gpus)[:3000]
    ar = link_loads(ib, "ib_adaptive", src, dst)
    static = link_loads(ib, "ib_static", src, dst)
    up = ar.load["leaf_up"].reshape(-1, ib.uplinks_per_leaf)
    assert np.allclose(up, up[:, :1])  # equal on every uplink of a leaf
    assert ar.slowdown() <= static.slowdown() + 1e-9


def test_eecmp_balances_better_than_ecmp_on_average() -> None:
    rng = np.random.default_rng(7)
    src = np.arange(0, 24_576, 2)
    dst = rng.permutation(24_576)[: len(src)]
    e = link_loads(FABRIC, "ecmp", src, dst, seed=1).layer_stats("leaf_up")
    q = link_loads(FABRIC, "eecmp", src, dst, qps=16, seed=1).layer_stats("leaf_up")
    assert q["max_over_mean"] < e["max_over_mean"]


def test_bad_mode_and_qps() -> None:
    with pytest.raises(UserError, match="mode"):
        link_loads(FABRIC, "spray", np.array([0]), np.array([99]))
    with pytest.raises(UserError, match="qps"):
        link_loads(FABRIC, "eecmp", np.array([0]), np.array([99]), qps=0)
