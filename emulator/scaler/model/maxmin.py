"""Max-min fair rates of flows on fixed paths (progressive filling, vectorised).

Every unfrozen flow's rate grows by the same amount until some link saturates; the flows
crossing a saturated link freeze; repeat.  The first level equals the bottleneck share
``min over links capacity / flows`` that the timing model uses; later levels give the rates
of flows that are not on the worst link (reported as the mean per-connection bandwidth).
"""

from __future__ import annotations

import numpy as np

from emulator.scaler.model.fabric import ClosFabric
from emulator.scaler.model.routing import LINK_CLASSES, flow_paths, link_capacities, link_sizes


def max_min_rates(paths: np.ndarray, capacity: np.ndarray, max_rounds: int = 100_000) -> np.ndarray:
    """Rates of flows whose links are the non-negative entries of each row of ``paths``."""
    paths = np.asarray(paths, dtype=np.int64)
    nflows = paths.shape[0]
    rates = np.zeros(nflows)
    residual = np.asarray(capacity, dtype=float).copy()
    used = paths >= 0
    safe = np.where(used, paths, 0)
    active = used.any(axis=1)
    for _ in range(max_rounds):
        if not active.any():
            break
        idx = paths[active][used[active]]
        n = np.bincount(idx, minlength=len(residual))
        loaded = n > 0
        share = np.full(len(residual), np.inf)
        share[loaded] = residual[loaded] / n[loaded]
        inc = float(share.min())
        rates[active] += inc
        residual -= inc * n
        saturated = loaded & (residual <= 1e-9 * np.asarray(capacity, dtype=float))
        touches = (saturated[safe] & used).any(axis=1)
        active &= ~touches
    return rates


def connection_rates(
    fabric: ClosFabric,
    mode: str,
    src: np.ndarray,
    dst: np.ndarray,
    k: int = 1,
    slot: int = 0,
    seed: int = 0,
) -> np.ndarray:
    """Max-min rate (bit/s) of every connection: the sum over its ``k`` flows (QPs)."""
    paths, conn = flow_paths(fabric, mode, np.asarray(src), np.asarray(dst), k, slot, seed)
    sizes, caps = link_sizes(fabric), link_capacities(fabric)
    offsets = np.cumsum([0] + [sizes[c] for c in LINK_CLASSES])[:-1]
    glob = np.where(paths >= 0, paths + offsets[None, :], -1)
    capacity = np.concatenate([np.full(sizes[c], caps[c]) for c in LINK_CLASSES])
    rates = max_min_rates(glob, capacity)
    return np.bincount(conn, weights=rates, minlength=len(src))
