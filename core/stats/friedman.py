"""Friedman test over blocks of ranked models, with pairwise post-hoc tests.

Blocks are the ``(rater, item)`` rankings, treatments the models.  Values are
re-ranked within each block (average ranks for ties), as scipy does.

Post-hoc tests (ADR 014), each giving a raw p per pair and a Bonferroni
``p_adj = min(1, p * m)`` with ``m`` the number of pairs:

* ``dunn`` (default, as ECHO): Dunn's rank-sum z test treating every model's rank
  values as a group, ranks pooled over all observations, tie-corrected -- identical
  to ``scikit_posthocs.posthoc_dunn(df, val_col=rank, group_col=model)``.
* ``siegel``: the Friedman-specific z test on mean within-block ranks,
  ``z = |Rbar_i - Rbar_j| / sqrt(k(k+1)/(6n))`` (Siegel & Castellan 1988; Demsar 2006's
  "Bonferroni-Dunn"), = ``posthoc_siegel_friedman``.
* ``conover``: Conover's t test for unreplicated blocks, = ``posthoc_conover_friedman``.
* ``nemenyi``: studentized-range test on mean ranks, = ``posthoc_nemenyi_friedman``.
  Its p is already family-wise; ``p_adj`` repeats it (no second correction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.stats.rankings import RankingTable
from core.visible_text import listed

POSTHOC_METHODS = ("dunn", "siegel", "conover", "nemenyi")


@dataclass(frozen=True)
class PosthocPair:
    a: str
    b: str
    statistic: float
    p: float
    p_adj: float


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman chi-square, its p-value and the pairwise post-hoc comparisons."""

    models: tuple[str, ...]
    statistic: float
    p: float
    n_blocks: int
    mean_ranks: np.ndarray
    posthoc_method: str
    posthoc: list[PosthocPair] = field(default_factory=list)


def _rank_rows(values: np.ndarray) -> np.ndarray:
    from scipy import stats  # on use: importing scipy.stats takes ~0.4 s (start-up)

    ranks: np.ndarray = stats.rankdata(values, axis=1, method="average")
    return ranks


def _norm_two_sided(z: np.ndarray) -> np.ndarray:
    from scipy import special

    p: np.ndarray = np.minimum(1.0, special.erfc(np.abs(z) / math.sqrt(2.0)))
    return p


def friedman_statistic(values: np.ndarray) -> tuple[float, float]:
    """Friedman chi-square (tie-corrected) and p for blocks ``(n, k)``."""
    from scipy import stats

    v = np.asarray(values, dtype=float)
    n, k = v.shape
    if k < 2:
        raise ValueError("the Friedman test needs at least 2 models")
    if n < 1:
        raise ValueError("the Friedman test needs at least 1 complete block")
    ranks = _rank_rows(v)
    ssbn = float(np.sum(ranks.sum(axis=0) ** 2))
    ties = 0.0
    for row in np.sort(v, axis=1):
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    c = 1.0 - ties / (k * (k * k - 1.0) * n)
    if c <= 0:
        raise ValueError("the Friedman test is undefined: every block ties all models")
    chisq = (12.0 / (n * k * (k + 1)) * ssbn - 3.0 * n * (k + 1)) / c
    return float(chisq), float(stats.chi2.sf(chisq, k - 1))


def _pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(k, 1)


def _dunn(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    n, k = values.shape
    pooled = stats.rankdata(values.reshape(-1), method="average").reshape(n, k)
    big_n = n * k
    _, counts = np.unique(pooled, return_counts=True)
    tie = float(np.sum(counts.astype(float) ** 3 - counts)) / (12.0 * (big_n - 1))
    mean = pooled.mean(axis=0)
    i, j = _pairs(k)
    se = np.sqrt((big_n * (big_n + 1.0) / 12.0 - tie) * (2.0 / n))
    z = np.abs(mean[i] - mean[j]) / se
    return z, _norm_two_sided(z)


def _siegel(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    i, j = _pairs(k)
    z = np.abs(mean[i] - mean[j]) / math.sqrt(k * (k + 1.0) / (6.0 * n))
    return z, _norm_two_sided(z)


def _nemenyi(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    i, j = _pairs(k)
    q = np.abs(mean[i] - mean[j]) / math.sqrt(k * (k + 1.0) / (6.0 * n)) * math.sqrt(2.0)
    return q, np.asarray(stats.studentized_range.sf(q, k, np.inf), dtype=float)


def _conover(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy import stats

    n, k = ranks.shape
    rank_sums = ranks.sum(axis=0)
    a1 = float(np.sum(ranks**2))
    s2 = (a1 - k * n * (k + 1.0) ** 2 / 4.0) / (k - 1.0)
    t2 = float(np.sum((rank_sums - n * (k + 1.0) / 2.0) ** 2)) / s2
    df = n * k - k - n + 1.0
    if df <= 0:
        raise ValueError("Conover's test needs at least 2 blocks")
    a = s2 * (2.0 * n * (k - 1.0)) / df
    b = 1.0 - t2 / (n * (k - 1.0))
    i, j = _pairs(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(rank_sums[i] - rank_sums[j]) / math.sqrt(a) / math.sqrt(b)
    if b <= 0:  # perfect agreement of all blocks: differences are certain
        t = np.where(rank_sums[i] == rank_sums[j], 0.0, np.inf)
    return t, 2.0 * stats.t.sf(t, df)


def friedman(
    values: np.ndarray, models: tuple[str, ...] | list[str], posthoc: str = "dunn"
) -> FriedmanResult:
    """Friedman test on complete blocks ``values (n_blocks, k)`` plus pairwise post-hoc."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] != len(models):
        raise ValueError("values must be (blocks, models)")
    if np.any(~np.isfinite(v)):
        raise ValueError("every block must rank every model (complete blocks)")
    if posthoc not in POSTHOC_METHODS:
        raise ValueError(
            f"unknown post-hoc {posthoc!r} (expected one of {', '.join(POSTHOC_METHODS)})"
        )
    chisq, p = friedman_statistic(v)
    ranks = _rank_rows(v)
    k = v.shape[1]
    if posthoc == "dunn":
        stat, praw = _dunn(v)
    elif posthoc == "siegel":
        stat, praw = _siegel(ranks)
    elif posthoc == "conover":
        stat, praw = _conover(ranks)
    else:
        stat, praw = _nemenyi(ranks)
    m = k * (k - 1) // 2
    padj = praw if posthoc == "nemenyi" else np.minimum(1.0, praw * m)
    i, j = _pairs(k)
    pairs = [
        PosthocPair(models[a], models[b], float(s), float(pr), float(pa))
        for a, b, s, pr, pa in zip(i, j, stat, praw, padj, strict=True)
    ]
    return FriedmanResult(tuple(models), chisq, p, v.shape[0], ranks.mean(axis=0), posthoc, pairs)


def complete_blocks(table: RankingTable) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Blocks ``(n, k)`` of a ranking table; a partially ranked block is an error."""
    rows = table.rankings()
    keys = table.block_keys()
    partial = np.flatnonzero(np.any(np.isnan(rows), axis=1))
    if partial.size:
        rater, item = keys[int(partial[0])]
        missing = [table.models[m] for m in np.flatnonzero(np.isnan(rows[partial[0]]))]
        raise ValueError(
            f"rater {rater!r} on item {item!r} does not rank model(s) "
            f"{listed(missing)}: the Friedman test needs complete blocks"
        )
    return rows, keys


def friedman_table(table: RankingTable, posthoc: str = "dunn") -> FriedmanResult:
    """Friedman test with (rater, item) blocks from a :class:`RankingTable`."""
    rows, _ = complete_blocks(table)
    return friedman(rows, table.models, posthoc=posthoc)
