"""Communication time of one training step under a TP / PP / DP layout.

Parallelism axes are mapped onto topology layers as Meta did for Llama 3::

    TP  (tensor)   inside a host: NVLink ring AllReduces of activations
    PP  (pipeline) consecutive hosts = racks of one AI Zone: point-to-point activations
    DP  (data)     across zones: ring AllReduce of each stage's gradients on 8 rails

Host ``h`` (in placement order) holds stage ``h % pp`` of replica ``h // pp``.  Times are
not overlapped with compute: they are the step's communication on the critical path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from emulator.errors import UserError
from emulator.scaler.model.collectives import place_hosts
from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import link_loads
from emulator.scaler.model.timing import ModelParams, step_time


@dataclass(frozen=True)
class StepLayout:
    """A Llama-3-405B-like layout (defaults) and the sizes its traffic depends on."""

    tp: int = 8
    pp: int = 16
    layers: int = 126
    hidden: int = 16_384
    seq_len: int = 8_192
    micro_batch: int = 1
    micro_batches: int = 16
    params: float = 405e9
    bytes_per_value: int = 2  # bf16

    @property
    def activation_bytes(self) -> float:
        """Activations of one micro-batch at a layer boundary."""
        return float(self.micro_batch * self.seq_len * self.hidden * self.bytes_per_value)


def check_layout(fabric: ClosFabric, layout: StepLayout) -> None:
    """Refuse a layout that does not fit ``fabric`` (TP fills a host, PP divides the hosts)."""
    g = fabric.gpus_per_host
    if layout.tp != g:
        raise UserError(f"layout: tp={layout.tp} must equal gpus_per_host={g} (TP inside the host)")
    if fabric.hosts % layout.pp:
        raise UserError(
            f"layout: pp={layout.pp} does not divide the {fabric.hosts} hosts of {fabric.gpus:,}"
            f" GPUs (the step needs a multiple of {layout.pp * g:,} GPUs)"
        )


def step_comm_time(
    fabric: ClosFabric,
    layout: StepLayout,
    mode: str,
    placement: str = "packed",
    qps: int = 1,
    seed: int = 0,
    params: ModelParams | None = None,
) -> dict[str, float]:
    """TP, PP and DP communication seconds of one step, and the PP/DP bottleneck slowdowns."""
    params = params or ModelParams()
    check_layout(fabric, layout)
    g = fabric.gpus_per_host
    dp = fabric.hosts // layout.pp
    phys = place_hosts(fabric, fabric.gpus, placement, seed).reshape(dp, layout.pp)
    lanes = np.arange(g)

    def rails(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (a.ravel()[:, None] * g + lanes).ravel(), (b.ravel()[:, None] * g + lanes).ravel()

    act = layout.activation_bytes
    nv_rate = fabric.nvlink_bps * params.nvlink_efficiency
    tp_ar = 2 * (g - 1) * (params.nvlink_alpha_s + 8.0 * act / g / nv_rate)
    tp_s = layout.micro_batches * (layout.layers / layout.pp) * 4 * tp_ar
    out = {"tp_s": tp_s, "pp_s": 0.0, "dp_s": 0.0, "pp_slowdown": 1.0, "dp_slowdown": 1.0}
    if layout.pp > 1:
        src, dst = rails(phys[:, :-1], phys[:, 1:])
        b = link_loads(fabric, mode, src, dst, qps=qps, seed=seed).slowdown()
        hops = 2 * (layout.micro_batches + layout.pp - 1)
        out["pp_s"] = hops * step_time(params, b, act / g, fabric.nic_bps)
        out["pp_slowdown"] = b
    if dp > 1:
        src, dst = rails(phys, np.roll(phys, -1, axis=0))
        b = link_loads(fabric, mode, src, dst, qps=qps, seed=seed, slot=1).slowdown()
        grad = layout.params / (layout.tp * layout.pp) * layout.bytes_per_value
        out["dp_s"] = 2 * (dp - 1) * step_time(params, b, grad / dp, fabric.nic_bps)
        out["dp_slowdown"] = b
    out["total_s"] = out["tp_s"] + out["pp_s"] + out["dp_s"]
    return out
