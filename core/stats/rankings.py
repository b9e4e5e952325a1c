"""Full or partial rankings of models, by rater and item, as one dense array.

``ranks[r, i, m]`` is the rank rater ``r`` gave model ``m`` on item ``i`` (1 = best,
equal ranks = tie), NaN where the model was not ranked.  Each ``(rater, item)`` is
one input ranking (a block for Friedman, a voter for Kemeny-Young).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RankingTable:
    """Ranks of ``models`` by ``raters`` on ``items`` (NaN = not ranked)."""

    raters: tuple[str, ...]
    items: tuple[str, ...]
    models: tuple[str, ...]
    ranks: np.ndarray  # (R, I, M)

    def rankings(self) -> np.ndarray:
        """Non-empty input rankings as rows ``(n_rankings, M)`` (rater-major order)."""
        flat = self.ranks.reshape(-1, len(self.models))
        kept: np.ndarray = flat[~np.all(np.isnan(flat), axis=1)]
        return kept

    @property
    def components(self) -> tuple[tuple[str, ...], ...]:
        """Groups of models ranked together (in one ranking, directly or through others),
        largest first: more than one, and the consensus order between groups is arbitrary
        (ADR 217)."""
        from scipy.sparse import bmat, csr_matrix
        from scipy.sparse.csgraph import connected_components

        # rankings and models as one bipartite graph (no (M, M) product of a big table),
        # each distinct set of models ranked together once
        present = ~np.isnan(self.ranks.reshape(-1, len(self.models)))
        packed = np.packbits(present, axis=1)
        _, first = np.unique(packed, axis=0, return_index=True)
        ranked = csr_matrix(present[first])
        _, labels = connected_components(bmat([[None, ranked], [ranked.T, None]]),
                                         directed=False)
        groups: dict[int, list[str]] = {}
        for model, label in zip(self.models, labels[ranked.shape[0]:], strict=True):
            groups.setdefault(int(label), []).append(model)
        return tuple(tuple(g) for g in sorted(groups.values(), key=lambda g: -len(g)))

    def block_keys(self) -> list[tuple[str, str]]:
        """``(rater, item)`` of each row of :meth:`rankings`, same order."""
        flat = self.ranks.reshape(-1, len(self.models))
        keep = np.flatnonzero(~np.all(np.isnan(flat), axis=1))
        n_items = len(self.items)
        return [(self.raters[k // n_items], self.items[k % n_items]) for k in keep]


def ranking_table(
    rater: Sequence[str],
    item: Sequence[str],
    model: Sequence[str],
    rank: Sequence[float],
) -> RankingTable:
    """Build a :class:`RankingTable` from long records (labels sorted)."""
    if not (len(rater) == len(item) == len(model) == len(rank)):
        raise ValueError("rater, item, model and rank must have the same length")
    if len(rater) == 0:
        raise ValueError("no rankings")
    raters = tuple(sorted(set(rater)))
    items = tuple(sorted(set(item)))
    models = tuple(sorted(set(model)))
    ri = {x: i for i, x in enumerate(raters)}
    ii = {x: i for i, x in enumerate(items)}
    mi = {x: i for i, x in enumerate(models)}
    r = np.fromiter((ri[x] for x in rater), dtype=np.int64, count=len(rater))
    it = np.fromiter((ii[x] for x in item), dtype=np.int64, count=len(item))
    m = np.fromiter((mi[x] for x in model), dtype=np.int64, count=len(model))
    vals = np.asarray(rank, dtype=float)
    if np.any(~np.isfinite(vals)):
        raise ValueError("ranks must be finite numbers")
    flat = (r * len(items) + it) * len(models) + m
    uniq, first, counts = np.unique(flat, return_index=True, return_counts=True)
    if np.any(counts > 1):
        k = int(np.flatnonzero(counts > 1)[0])
        dup = np.flatnonzero(flat == uniq[k])[1]
        raise ValueError(
            f"rater {rater[dup]!r} ranks model {model[dup]!r} on item {item[dup]!r} more than once"
        )
    ranks = np.full((len(raters), len(items), len(models)), np.nan)
    ranks.reshape(-1)[flat] = vals
    return RankingTable(raters, items, models, ranks)


#: Comparisons (booleans) one chunk of rankings may hold: 8 MB, whatever the file's size.
CHUNK_CELLS = 8 * 2**20


def rows_per_chunk(k: int) -> int:
    """Rankings of ``k`` models compared at once within :data:`CHUNK_CELLS`."""
    return max(1, CHUNK_CELLS // max(1, k * k))


def pairwise_preferences(rankings: np.ndarray) -> np.ndarray:
    """``P[i, j]`` = number of rankings that put ``i`` strictly above ``j`` (lower rank).

    ``rankings`` is ``(n, K)`` with NaN for unranked models (never counted).  Rankings
    are compared a chunk at a time (:func:`rows_per_chunk`), so memory is O(K²).
    """
    r = np.asarray(rankings, dtype=float)
    k = r.shape[1]
    p = np.zeros((k, k), dtype=np.int64)
    chunk = rows_per_chunk(k)
    for start in range(0, r.shape[0], chunk):
        part = r[start : start + chunk]
        with np.errstate(invalid="ignore"):
            p += np.sum(part[:, :, None] < part[:, None, :], axis=0)
    return p
