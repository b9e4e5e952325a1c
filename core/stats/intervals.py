"""Interval bounds that hold their own point estimate (ADR 183).

A bootstrap interval is the quantiles of refits, and the point estimate is a separate
fit: when every resample equals the data (one vote) the refits can differ from the point
by solver noise (~1e-10).  Bradley-Terry Elo's interval goes through :func:`containing`,
so ``lo <= point <= hi`` holds.  Online Elo keeps FastChat's plain quantiles (ADR 024):
its in-order rating may lie outside the random-order replays, as on FastChat's board.
"""

from __future__ import annotations

import numpy as np

__all__ = ["containing"]


def containing(point: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)`` widened just enough to contain ``point`` (elementwise)."""
    return np.minimum(lo, point), np.maximum(hi, point)
