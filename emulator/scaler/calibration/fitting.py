"""The one least-squares pipeline both calibrations use.

Both timing models are linear in their parameters, fitted by weighted least squares with
relative errors weighted equally.  A term that the data cannot identify, or that comes out
with a meaningless sign, is dropped and the rest refitted; a dropped term is 0 with a
standard error of 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# A rule looks at the full-width coefficients of a fit and names a column to drop, or None.
DropRule = Callable[[np.ndarray], int | None]


@dataclass(frozen=True)
class LinearFit:
    """Coefficients and standard errors, full width (dropped terms are 0)."""

    theta: np.ndarray
    stderr: np.ndarray
    columns: tuple[int, ...]


def weighted_least_squares(
    X: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and their covariance for ``y ~ X`` with row weights ``w``."""
    Xw, yw = X * w[:, None], y * w
    theta, *_ = np.linalg.lstsq(Xw, yw, rcond=None)
    resid = yw - Xw @ theta
    sigma2 = float(resid @ resid) / max(1, len(y) - X.shape[1])
    return theta, sigma2 * np.linalg.pinv(Xw.T @ Xw)


def fit_terms(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    columns: Sequence[int],
    drop_rules: Sequence[DropRule] = (),
) -> LinearFit:
    """Fit on ``columns``; each rule in turn may drop one column, and the rest is refitted."""
    cols = list(columns)
    theta, se = _fit_columns(X, y, w, cols)
    for rule in drop_rules:
        col = rule(theta)
        if col is not None and col in cols:
            cols.remove(col)
            theta, se = _fit_columns(X, y, w, cols)
    return LinearFit(theta, se, tuple(cols))


def _fit_columns(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, cols: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    theta_c, cov_c = weighted_least_squares(X[:, cols], y, w)
    theta, se = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    theta[cols] = theta_c
    se[cols] = np.sqrt(np.clip(np.diag(cov_c), 0, None))
    return theta, se
