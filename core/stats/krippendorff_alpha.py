"""Krippendorff's alpha for nominal, ordinal, interval and ratio data with missing values.

Following Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011):
the coincidence matrix ``o[c, k] = sum_u (n_uc n_uk - [c == k] n_uc) / (m_u - 1)``
over units with ``m_u >= 2`` values, marginals ``n_c``, total ``n``, and

    alpha = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

with the squared difference ``d2`` of the level: nominal ``[c != k]``; ordinal
``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2``; interval ``(c - k)^2``; ratio
``((c - k)/(c + k))^2``.  Alpha is undefined (a :class:`ValueError` explains why)
when fewer than two values are pairable or every pairable value is the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")


class AlphaUndefinedError(ValueError):
    """Krippendorff's alpha cannot be computed for these data."""


def _value_counts(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(counts (units, V), values (V,))`` from reliability data ``(raters, units)``."""
    finite = ~np.isnan(data)
    values = np.unique(data[finite])
    idx = np.searchsorted(values, data[finite])
    unit = np.broadcast_to(np.arange(data.shape[1]), data.shape)[finite]
    counts = np.zeros((data.shape[1], values.size))
    np.add.at(counts, (unit, idx), 1.0)
    return counts, values


def _distance(values: np.ndarray, n_c: np.ndarray, level: str) -> np.ndarray:
    if level in ("interval", "ratio") and values.size and (top := np.abs(values).max()) > 0:
        # both are unchanged by scaling every value by one number; scaled to [-1, 1], the
        # squares neither overflow (1e308) nor underflow (1e-300) to 0
        values = values / top
    c = values[:, None]
    k = values[None, :]
    if level == "nominal":
        nominal: np.ndarray = (c != k).astype(float)
        return nominal
    if level == "interval":
        squared: np.ndarray = (c - k) ** 2
        return squared
    if level == "ratio":
        s = c + k
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.where(s == 0, 0.0, ((c - k) / np.where(s == 0, 1.0, s)) ** 2)
        return d
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        i = np.arange(values.size)
        lo = np.minimum(i[:, None], i[None, :])
        hi = np.maximum(i[:, None], i[None, :])
        between = cum[hi + 1] - cum[lo]
        ordinal: np.ndarray = (between - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
        return ordinal
    raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")


def alpha(reliability_data: np.ndarray, level: str = "interval") -> float:
    """Krippendorff's alpha of ``(raters, units)`` data with NaN for missing values."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (expected one of {', '.join(LEVELS)})")
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError("reliability data must be (raters, units)")
    if np.any(np.isinf(data)):
        raise ValueError("values must be finite numbers")
    if level == "ratio" and np.any(data[~np.isnan(data)] < 0):
        raise ValueError("ratio-level data must not be negative")
    if data.size == 0 or np.all(np.isnan(data)):
        raise AlphaUndefinedError("Krippendorff's alpha is undefined: no ratings")
    counts, values = _value_counts(data)
    m_u = counts.sum(axis=1)
    pairable = m_u >= 2
    if not pairable.any():
        raise AlphaUndefinedError(
            "Krippendorff's alpha is undefined: no unit has ratings from two raters"
        )
    counts = counts[pairable]
    weights = 1.0 / (m_u[pairable] - 1.0)
    o = (counts * weights[:, None]).T @ counts
    o[np.diag_indices_from(o)] -= (counts * weights[:, None]).sum(axis=0)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d2 = _distance(values, n_c, level)
    d_e = float(n_c @ d2 @ n_c)
    if d_e <= 0.0:
        raise AlphaUndefinedError(
            "Krippendorff's alpha is undefined: every pairable rating has the same value "
            "(no variation to measure agreement against)"
        )
    d_o = float(np.sum(o * d2))
    return float(1.0 - (n - 1.0) * d_o / d_e)


def reliability_matrix(
    rater: Sequence[str], unit: Sequence[str], value: Sequence[float]
) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """Long records → ``(data (raters, units), raters, units)`` with NaN for missing."""
    if not (len(rater) == len(unit) == len(value)):
        raise ValueError("rater, unit and value must have the same length")
    raters = tuple(sorted(set(rater)))
    units = tuple(sorted(set(unit)))
    ri = {x: i for i, x in enumerate(raters)}
    ui = {x: i for i, x in enumerate(units)}
    r = np.fromiter((ri[x] for x in rater), dtype=np.int64, count=len(rater))
    u = np.fromiter((ui[x] for x in unit), dtype=np.int64, count=len(unit))
    flat = r * len(units) + u
    uniq, counts = np.unique(flat, return_counts=True)
    if np.any(counts > 1):
        dup = int(uniq[np.flatnonzero(counts > 1)[0]])
        raise ValueError(
            f"rater {raters[dup // len(units)]!r} rates unit {units[dup % len(units)]!r} more than once"
        )
    data = np.full((len(raters), len(units)), np.nan)
    data.reshape(-1)[flat] = np.asarray(value, dtype=float)
    return data, raters, units


def alpha_records(
    rater: Sequence[str], unit: Sequence[str], value: Sequence[float], level: str = "interval"
) -> float:
    """Krippendorff's alpha from long records (missing ratings are absent records)."""
    data, _, _ = reliability_matrix(rater, unit, value)
    return alpha(data, level)
