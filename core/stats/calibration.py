"""Z-score (mean-variance) calibration of autorater scores to the human distribution.

TECCI: ``calibrated = (x - mu_auto) / sd_auto * sd_human + mu_human``, independently
per criterion, with the statistics taken on the human-annotated subset (the
autorater's scores on those units, and the human scores there) and applied to all
autorater scores.  Standard deviations are population ones (``ddof=0``) unless
told otherwise (ADR 016).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class ZParams:
    """Means and standard deviations of the autorater and human reference scores."""

    mu_auto: float
    sd_auto: float
    mu_human: float
    sd_human: float

    def apply(self, scores: ArrayLike) -> np.ndarray:
        x = np.asarray(scores, dtype=float)
        return (x - self.mu_auto) / self.sd_auto * self.sd_human + self.mu_human


def _finite(a: ArrayLike, what: str) -> np.ndarray:
    x = np.asarray(a, dtype=float).reshape(-1)
    x = np.asarray(x[~np.isnan(x)])
    if x.size == 0:
        raise ValueError(f"no {what} scores to calibrate against")
    if np.any(~np.isfinite(x)):
        raise ValueError(f"{what} scores must be finite")
    return x


def zscore_params(auto_reference: ArrayLike, human_reference: ArrayLike, ddof: int = 0) -> ZParams:
    """Fit calibration parameters (NaN entries ignored)."""
    a = _finite(auto_reference, "autorater")
    h = _finite(human_reference, "human")
    sd_a = float(np.std(a, ddof=ddof)) if a.size > ddof else 0.0
    if sd_a == 0.0:
        raise ValueError(
            "cannot calibrate: the autorater reference scores are constant (standard deviation 0)"
        )
    sd_h = float(np.std(h, ddof=ddof)) if h.size > ddof else 0.0
    return ZParams(float(a.mean()), sd_a, float(h.mean()), sd_h)


def zscore_calibrate(
    scores: ArrayLike,
    human_reference: ArrayLike,
    auto_reference: ArrayLike | None = None,
    ddof: int = 0,
) -> np.ndarray:
    """Calibrate ``scores``; ``auto_reference`` defaults to ``scores`` themselves."""
    ref = scores if auto_reference is None else auto_reference
    return zscore_params(ref, human_reference, ddof).apply(scores)


def calibrate_per_criterion(
    scores: Mapping[str, ArrayLike],
    human_reference: Mapping[str, ArrayLike],
    auto_reference: Mapping[str, ArrayLike] | None = None,
    ddof: int = 0,
) -> dict[str, np.ndarray]:
    """Calibrate each criterion's autorater scores to that criterion's human scores."""
    out = {}
    for crit, vals in scores.items():
        if crit not in human_reference:
            raise ValueError(f"no human scores for criterion {crit!r}")
        ref = vals if auto_reference is None else auto_reference[crit]
        out[crit] = zscore_params(ref, human_reference[crit], ddof).apply(vals)
    return out
