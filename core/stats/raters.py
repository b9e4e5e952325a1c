"""Rater quality: Pearson correlation with the others' mean, and filtering (TECCI).

For rater ``r`` and every cell (e.g. a unit x model x criterion rating) that ``r``
rated and at least one other rater rated, compare ``r``'s value with the mean of
the other raters' values; Pearson's r over those cells.  Raters whose r is below
the threshold are dropped.  A correlation that cannot be computed (fewer than two
shared cells, or a constant sequence) is reported as ``None`` and the rater is kept:
there is nothing to judge them on (ADR 016).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Default minimum correlation (TECCI's exact cut-off is not legible in the paper).
DEFAULT_MIN_CORRELATION = 0.3


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 2:
        return math.nan
    xc = x - x.mean()
    yc = y - y.mean()
    den = math.sqrt(float(xc @ xc) * float(yc @ yc))
    if den == 0.0:
        return math.nan
    return max(-1.0, min(1.0, float(xc @ yc) / den))


def correlation_with_others(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ``data (raters, cells)`` with NaN = missing: ``(r (R,), n_shared (R,))``.

    ``r`` is NaN where undefined.
    """
    d = np.asarray(data, dtype=float)
    if d.ndim != 2:
        raise ValueError("data must be (raters, cells)")
    has = ~np.isnan(d)
    vals = np.where(has, d, 0.0)
    total = vals.sum(axis=0)
    count = has.sum(axis=0)
    r = np.full(d.shape[0], np.nan)
    n = np.zeros(d.shape[0], dtype=np.int64)
    for i in range(d.shape[0]):
        others = count - has[i]
        ok = has[i] & (others > 0)
        n[i] = int(ok.sum())
        if n[i] < 2:
            continue
        mean_others = (total[ok] - vals[i, ok]) / others[ok]
        r[i] = _pearson(d[i, ok], mean_others)
    return r, n


@dataclass(frozen=True)
class RaterFilter:
    """Per-rater correlation with the others' mean and the keep/drop decision."""

    raters: tuple[str, ...]
    correlation: tuple[float | None, ...]
    n_shared: tuple[int, ...]
    kept: tuple[bool, ...]
    threshold: float

    @property
    def kept_raters(self) -> list[str]:
        return [r for r, k in zip(self.raters, self.kept, strict=True) if k]

    @property
    def dropped_raters(self) -> list[str]:
        return [r for r, k in zip(self.raters, self.kept, strict=True) if not k]


def filter_raters(
    data: np.ndarray, raters: Sequence[str], threshold: float = DEFAULT_MIN_CORRELATION
) -> RaterFilter:
    """Keep raters whose correlation with the others' mean is >= ``threshold``."""
    r, n = correlation_with_others(data)
    corr = tuple(None if math.isnan(v) else float(v) for v in r)
    kept = tuple(c is None or c >= threshold for c in corr)
    return RaterFilter(tuple(raters), corr, tuple(int(x) for x in n), kept, float(threshold))


def rating_matrix(
    rater: Sequence[str], cell: Sequence[object], value: Sequence[float]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Long records (rater, hashable cell key, value) → ``(data (raters, cells), raters)``."""
    if not (len(rater) == len(cell) == len(value)):
        raise ValueError("rater, cell and value must have the same length")
    raters = tuple(sorted(set(rater)))
    ri = {x: i for i, x in enumerate(raters)}
    ci: dict[object, int] = {}
    cols = np.fromiter((ci.setdefault(c, len(ci)) for c in cell), dtype=np.int64, count=len(cell))
    rows = np.fromiter((ri[x] for x in rater), dtype=np.int64, count=len(rater))
    data = np.full((len(raters), len(ci)), np.nan)
    flat = rows * len(ci) + cols
    if np.unique(flat).size != flat.size:
        raise ValueError("a rater rates the same cell more than once")
    data.reshape(-1)[flat] = np.asarray(value, dtype=float)
    return data, raters
