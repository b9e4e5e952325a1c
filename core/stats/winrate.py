"""ECHO pseudo-pairwise win rate from per-output scores.

For every sample and every pair of models scored on it, the higher score wins
(1), the lower loses (0), equal scores tie (0.5).  With several judges each judge
gives a verdict (i wins, j wins, tie) and the pair's outcome is the verdict most
judges gave; when no verdict has a strict plurality the pair is a tie (ADR 015).
A model's win rate is the mean outcome over all its (sample, opponent) comparisons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.stats.bradley_terry import named_groups


@dataclass(frozen=True)
class WinRateResult:
    """Win rate per model plus the underlying pairwise table."""

    models: tuple[str, ...]
    win_rate: np.ndarray  # (K,), NaN-free; models without comparisons are excluded
    n_comparisons: np.ndarray  # (K,) comparisons per model
    pair_points: np.ndarray  # (K, K) points of i against j (1 / 0.5 / 0 summed)
    pair_counts: np.ndarray  # (K, K) comparisons of i with j

    @property
    def components(self) -> tuple[tuple[str, ...], ...]:
        """Groups of models linked by comparisons, largest first: more than one, and the
        win rates of different groups are not comparable (ADR 217)."""
        return named_groups(self.models, self.pair_counts)

    def win_rate_dict(self) -> dict[str, float]:
        """``{model: rate}``, best first."""
        order = np.argsort(-self.win_rate, kind="stable")
        return {self.models[i]: float(self.win_rate[i]) for i in order}


def pair_outcomes(scores: np.ndarray, max_cells: int = 4_000_000) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample pair outcomes from a score tensor ``(J judges, N samples, K models)``.

    Missing scores are NaN.  Returns ``(points (K, K), counts (K, K))`` summed over
    samples, where a pair on a sample counts once when at least one judge scored both.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim == 2:
        s = s[None]
    n_judges, n, k = s.shape
    chunk = max(1, max_cells // max(1, n_judges * k * k))
    points = np.zeros((k, k))
    counts = np.zeros((k, k))
    for start in range(0, n, chunk):
        part = s[:, start : start + chunk]  # (J, n, K)
        with np.errstate(over="ignore"):  # 1e308 - -1e308 is inf: still the right sign
            diff = part[:, :, :, None] - part[:, :, None, :]  # (J, n, K, K)
        valid = ~np.isnan(diff)
        with np.errstate(invalid="ignore"):
            wins = np.sum(valid & (diff > 0), axis=0)
            losses = np.sum(valid & (diff < 0), axis=0)
            ties = np.sum(valid & (diff == 0), axis=0)
        judged = valid.any(axis=0)
        top = np.maximum(np.maximum(wins, losses), ties)
        unique_top = ((wins == top).astype(int) + (losses == top) + (ties == top)) == 1
        outcome = np.where(
            unique_top & (wins == top), 1.0, np.where(unique_top & (losses == top), 0.0, 0.5)
        )
        eye = np.eye(k, dtype=bool)
        judged &= ~eye
        points += np.sum(np.where(judged, outcome, 0.0), axis=0)
        counts += np.sum(judged, axis=0)
    return points, counts


def win_rates_from_tensor(scores: np.ndarray, models: Sequence[str]) -> WinRateResult:
    """Win rates from ``(J, N, K)`` (or ``(N, K)``) scores with NaN for missing."""
    points, counts = pair_outcomes(scores)
    n_cmp = counts.sum(axis=1)
    keep = n_cmp > 0
    if len(models) == 1:  # a rankings file of one model read "no sample has scores"
        raise ValueError(f"only one model ({models[0]!r}): a win rate compares two or more "
                         "models on the same sample or item: no comparisons")
    if not keep.any():
        raise ValueError("no sample or item has values for two different models: "
                         "no comparisons")
    idx = np.flatnonzero(keep)
    rate = points.sum(axis=1)[idx] / n_cmp[idx]
    names = tuple(models[int(i)] for i in idx)
    return WinRateResult(
        names, rate, n_cmp[idx], points[np.ix_(idx, idx)], counts[np.ix_(idx, idx)]
    )


def score_tensor(
    sample: Sequence[str],
    model: Sequence[str],
    score: Sequence[float],
    judge: Sequence[str] | None = None,
) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Long records → ``(scores (J, N, K), judges, samples, models)`` (sorted labels)."""
    if judge is None:
        judge = [""] * len(sample)
    if not (len(sample) == len(model) == len(score) == len(judge)):
        raise ValueError("sample, model, score and judge must have the same length")
    judges = tuple(sorted(set(judge)))
    samples = tuple(sorted(set(sample)))
    models = tuple(sorted(set(model)))
    ji = {x: i for i, x in enumerate(judges)}
    si = {x: i for i, x in enumerate(samples)}
    mi = {x: i for i, x in enumerate(models)}
    t = np.full((len(judges), len(samples), len(models)), np.nan)
    jj = np.fromiter((ji[x] for x in judge), dtype=np.int64, count=len(judge))
    ss = np.fromiter((si[x] for x in sample), dtype=np.int64, count=len(sample))
    mm = np.fromiter((mi[x] for x in model), dtype=np.int64, count=len(model))
    vals = np.asarray(score, dtype=float)
    if np.any(~np.isfinite(vals)):
        raise ValueError("scores must be finite numbers")
    flat = (jj * len(samples) + ss) * len(models) + mm
    if np.unique(flat).size != flat.size:
        raise ValueError("a (sample, model, judge) combination is scored more than once")
    t.reshape(-1)[flat] = vals
    return t, judges, samples, models


def win_rates(
    sample: Sequence[str],
    model: Sequence[str],
    score: Sequence[float],
    judge: Sequence[str] | None = None,
) -> WinRateResult:
    """ECHO win rate from long records (one score per sample, model and judge)."""
    if len(sample) == 0:
        raise ValueError("no scores")
    t, _, _, models = score_tensor(sample, model, score, judge)
    return win_rates_from_tensor(t, models)
