"""The AI-Zone fabric description at Llama 3 and 100K scale."""

from __future__ import annotations

import pytest

from emulator.errors import UserError
from emulator.scaler.model.fabric import EXTENSION_100K_GPUS, LLAMA3_GPUS, ClosFabric, meta_fabric


def test_llama3_shape() -> None:
    f = meta_fabric(LLAMA3_GPUS)
    assert (f.zones, f.gpus_per_zone, f.racks, f.hosts) == (8, 3072, 1536, 3072)
    assert f.effective_oversubscription == pytest.approx(7.0, rel=0.03)
    ib = meta_fabric(LLAMA3_GPUS, "ib")
    assert (ib.zones, ib.gpus_per_zone) == (8, 3072)
    assert ib.effective_oversubscription == pytest.approx(7.0, rel=0.03)


def test_100k_extension_and_partial_zones() -> None:
    assert meta_fabric(EXTENSION_100K_GPUS).zones == 33
    assert meta_fabric(100_000).zones == 33  # last zone partial
    assert meta_fabric(100_000, oversubscription=1.0).aggs == 192


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "nvlink"}, "kind"),
        ({"gpus": 12}, "whole number"),
        ({"uplinks_per_leaf": 10}, "multiple of spines"),
        ({"gpus_per_rack": 12}, "multiple of gpus_per_host"),
        ({"spines": 0}, "spines"),
    ],
)
def test_bad_shapes(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"name": "x", "kind": "roce", "gpus": 64, **kwargs}
    with pytest.raises(UserError, match=match):
        ClosFabric(**args)  # type: ignore[arg-type]


def test_adapts_the_topology_layers_scale_spec() -> None:
    from emulator.scaler.model.fabric import from_scale_spec
    from emulator.topology.scale import ScaleSpec

    spec = ScaleSpec(name="llama3")
    fab = from_scale_spec(spec)
    ref = meta_fabric(LLAMA3_GPUS)
    assert (fab.gpus, fab.zones, fab.racks_per_zone, fab.spines, fab.uplinks_per_leaf) == (
        ref.gpus,
        ref.zones,
        ref.racks_per_zone,
        ref.spines,
        ref.uplinks_per_leaf,
    )
    counts = spec.counts()
    assert fab.aggs == counts["ports"]["ctsw"] - fab.racks_per_zone  # CTSW uplinks agree
    assert fab.effective_oversubscription == pytest.approx(counts["oversubscription"]["actual"])


def test_address_plan_limits_are_user_errors() -> None:
    with pytest.raises(UserError, match="address plan"):
        meta_fabric(256 * 3072)  # 256 zones: the zone octet is exhausted
    assert meta_fabric(255 * 3072).zones == 255
