"""TECCI success rates on Likert ratings, with a threshold sweep.

A (unit, model) succeeds on a criterion when its mean rating over raters is
``>= tau``; it succeeds overall when it succeeds on every criterion.  A model's
success rate on a criterion is the fraction of its units rated on that criterion
that succeed; its overall rate is the fraction, over its units rated on every
criterion, that succeed overall (ADR 016).  Rates with no unit to count are
``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Tolerance for ``mean >= tau`` so that e.g. (4+4+4)/3 never misses 4 by rounding.
_EPS = 1e-9


@dataclass(frozen=True)
class LikertMeans:
    """Mean rating over raters, ``means[m, u, c]`` (NaN = not rated)."""

    models: tuple[str, ...]
    units: tuple[str, ...]
    criteria: tuple[str, ...]
    means: np.ndarray


def likert_means(
    rater: Sequence[str],
    unit: Sequence[str],
    model: Sequence[str],
    criterion: Sequence[str],
    value: Sequence[float] | np.ndarray,
) -> LikertMeans:
    """Average long records over raters (labels sorted)."""
    if not (len(rater) == len(unit) == len(model) == len(criterion) == len(value)):
        raise ValueError("rater, unit, model, criterion and value must have the same length")
    if len(rater) == 0:
        raise ValueError("no ratings")
    models = tuple(sorted(set(model)))
    units = tuple(sorted(set(unit)))
    criteria = tuple(sorted(set(criterion)))
    raters = {x: i for i, x in enumerate(sorted(set(rater)))}
    mi = {x: i for i, x in enumerate(models)}
    ui = {x: i for i, x in enumerate(units)}
    ci = {x: i for i, x in enumerate(criteria)}
    m = np.fromiter((mi[x] for x in model), dtype=np.int64, count=len(model))
    u = np.fromiter((ui[x] for x in unit), dtype=np.int64, count=len(unit))
    c = np.fromiter((ci[x] for x in criterion), dtype=np.int64, count=len(criterion))
    r = np.fromiter((raters[x] for x in rater), dtype=np.int64, count=len(rater))
    cell = (m * len(units) + u) * len(criteria) + c
    key = cell * len(raters) + r
    if np.unique(key).size != key.size:
        raise ValueError("a rater rates the same (unit, model, criterion) more than once")
    vals = np.asarray(value, dtype=float)
    size = len(models) * len(units) * len(criteria)
    sums = np.bincount(cell, weights=vals, minlength=size)
    counts = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return LikertMeans(
        models, units, criteria, means.reshape(len(models), len(units), len(criteria))
    )


def success_sweep(means: np.ndarray, taus: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Success rates for every threshold: ``(per_criterion (T, M, C), overall (T, M))``.

    NaN where a model has no unit to count.
    """
    x = np.asarray(means, dtype=float)  # (M, U, C)
    t = np.asarray(taus, dtype=float).reshape(-1, 1, 1, 1)
    rated = ~np.isnan(x)
    with np.errstate(invalid="ignore"):
        ok = rated[None] & (x[None] >= t - _EPS)  # (T, M, U, C)
    n_rated = rated.sum(axis=1)  # (M, C)
    complete = rated.all(axis=2)  # (M, U)
    n_complete = complete.sum(axis=1)  # (M,)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = ok.sum(axis=2) / np.where(n_rated > 0, n_rated, np.nan)
        overall = (ok.all(axis=3) & complete[None]).sum(axis=2) / np.where(
            n_complete > 0, n_complete, np.nan
        )
    return per, overall


@dataclass(frozen=True)
class SuccessResult:
    """Success rate per model and criterion, and overall, at threshold ``tau``."""

    models: tuple[str, ...]
    criteria: tuple[str, ...]
    rates: np.ndarray  # (M, C), NaN = nothing to count
    overall: np.ndarray  # (M,)
    tau: float

    def as_dict(self) -> dict[str, dict[str, float | None]]:
        """``{model: {criterion: rate, ..., "overall": rate}}`` (None = nothing to count)."""

        def v(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        return {
            m: {
                **{c: v(self.rates[i, j]) for j, c in enumerate(self.criteria)},
                "overall": v(self.overall[i]),
            }
            for i, m in enumerate(self.models)
        }


def success_rates(means: LikertMeans, tau: float = 4.0) -> SuccessResult:
    """Success rates of averaged ratings at threshold ``tau``."""
    per, overall = success_sweep(means.means, [tau])
    return SuccessResult(means.models, means.criteria, per[0], overall[0], float(tau))


def success(
    rater: Sequence[str],
    unit: Sequence[str],
    model: Sequence[str],
    criterion: Sequence[str],
    value: Sequence[float],
    tau: float = 4.0,
) -> SuccessResult:
    """TECCI success rates from long Likert records."""
    return success_rates(likert_means(rater, unit, model, criterion, value), tau)
