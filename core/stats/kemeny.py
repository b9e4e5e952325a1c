"""Kemeny-Young consensus ranking.

The consensus is the strict order maximizing the agreement
``sum over ordered pairs (i above j in the order) of P[i, j]`` where ``P[i, j]`` is
the number of input rankings putting ``i`` strictly above ``j`` (equivalently, it
minimizes the total Kendall distance to the inputs; ties in an input count for
neither side).

* Exact for up to :data:`EXACT_MAX_ITEMS` models: dynamic programming over subsets
  (Held-Karp style).  ``best[S]`` is the best agreement of an order of ``S`` placed
  at the top; putting ``x`` just below ``S`` gains ``sum_{s in S} P[s, x]``.  The
  subsets are processed by size, each layer vectorized with numpy.
* Beyond that: a documented heuristic (ADR 012) -- Copeland order, then local
  search by single-item moves until no move improves; the result says ``exact=False``.

Among several optimal orders the DP keeps the first found; ties are therefore
broken deterministically by model order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.stats.rankings import RankingTable, pairwise_preferences, ranking_table

#: Largest number of models solved exactly (SPEC asks for at least 9).
EXACT_MAX_ITEMS = 16


@dataclass(frozen=True)
class KemenyResult:
    """Consensus order (best first) and its agreement score."""

    models: tuple[str, ...]
    order: tuple[int, ...]  # model indices, best first
    score: float
    exact: bool

    @property
    def consensus(self) -> list[str]:
        return [self.models[i] for i in self.order]

    def positions(self) -> np.ndarray:
        """Consensus rank (1 = best) of every model, in model order."""
        pos = np.empty(len(self.order))
        pos[list(self.order)] = np.arange(1, len(self.order) + 1)
        return pos


def order_score(p: np.ndarray, order: Sequence[int]) -> float:
    """Agreement of ``order`` (best first) with preference counts ``p``."""
    o = np.asarray(order, dtype=np.int64)
    sub = np.asarray(p, dtype=float)[np.ix_(o, o)]
    return float(np.triu(sub, 1).sum())


def _exact(p: np.ndarray) -> tuple[list[int], float]:
    k = p.shape[0]
    n_masks = 1 << k
    # gain[mask, x] = sum_{s in mask} p[s, x]
    gain = np.zeros((n_masks, k))
    for bit in range(k):
        lo = 1 << bit
        gain[lo : 2 * lo] = gain[:lo] + p[bit]
    masks = np.arange(n_masks)
    popcount = np.zeros(n_masks, dtype=np.int64)
    for bit in range(k):
        popcount += (masks >> bit) & 1
    best = np.full(n_masks, -np.inf)
    best[0] = 0.0
    choice = np.full(n_masks, -1, dtype=np.int64)
    for size in range(1, k + 1):
        layer = masks[popcount == size]
        layer_best = np.full(layer.size, -np.inf)
        layer_choice = np.full(layer.size, -1, dtype=np.int64)
        for x in range(k):
            has = (layer >> x) & 1 == 1
            prev = layer[has] ^ (1 << x)
            cand = best[prev] + gain[prev, x]
            sel = np.flatnonzero(has)
            better = cand > layer_best[sel]
            layer_best[sel[better]] = cand[better]
            layer_choice[sel[better]] = x
        best[layer] = layer_best
        choice[layer] = layer_choice
    order: list[int] = []
    mask = n_masks - 1
    while mask:
        x = int(choice[mask])
        order.append(x)
        mask ^= 1 << x
    order.reverse()
    return order, float(best[n_masks - 1])


def _heuristic(p: np.ndarray) -> tuple[list[int], float]:
    k = p.shape[0]
    net = (p - p.T).sum(axis=1)
    order = list(np.argsort(-net, kind="stable"))
    improved = True
    while improved:
        improved = False
        for pos in range(k):
            x = order[pos]
            others = np.asarray(order)
            d = p[x, others] - p[others, x]  # gain of x above y minus y above x
            # move x up to position q < pos: x passes order[q:pos]
            up = np.cumsum(d[:pos][::-1])[::-1] if pos > 0 else np.zeros(0)
            # move x down to position q > pos: order[pos+1:q+1] pass above x
            down = -np.cumsum(d[pos + 1 :])
            best_gain, target = 0.0, pos
            if up.size and up.max() > best_gain + 1e-9:
                best_gain, target = float(up.max()), int(np.argmax(up))
            if down.size and down.max() > best_gain + 1e-9:
                best_gain, target = float(down.max()), pos + 1 + int(np.argmax(down))
            if target != pos:
                order.pop(pos)
                order.insert(target, x)
                improved = True
                break
    return [int(i) for i in order], order_score(p, order)


def kemeny_order(
    p: np.ndarray, exact_max_items: int = EXACT_MAX_ITEMS
) -> tuple[list[int], float, bool]:
    """Consensus order (indices, best first), agreement score and whether it is exact."""
    p = np.asarray(p, dtype=float)
    k = p.shape[0]
    if p.ndim != 2 or p.shape[1] != k:
        raise ValueError("preference matrix must be square")
    if k == 0:
        raise ValueError("no models to rank")
    if k <= exact_max_items:
        order, score = _exact(p)
        return order, score, True
    order, score = _heuristic(p)
    return order, score, False


def _as_number(x: float) -> float:
    return int(x) if float(x).is_integer() else float(x)


def kemeny_from_rankings(
    rankings: np.ndarray, models: Sequence[str], exact_max_items: int = EXACT_MAX_ITEMS
) -> KemenyResult:
    """Consensus of input rankings ``(n, K)`` (NaN = unranked)."""
    r = np.asarray(rankings, dtype=float)
    if r.ndim != 2 or r.shape[0] == 0:
        raise ValueError("no rankings")
    p = pairwise_preferences(r)
    order, score, exact = kemeny_order(p, exact_max_items)
    return KemenyResult(tuple(models), tuple(order), _as_number(score), exact)


def kemeny_table(table: RankingTable, exact_max_items: int = EXACT_MAX_ITEMS) -> KemenyResult:
    """Consensus over every (rater, item) ranking of a :class:`RankingTable`."""
    return kemeny_from_rankings(table.rankings(), table.models, exact_max_items)


def kemeny_per_item(table: RankingTable) -> np.ndarray:
    """Per-item consensus positions ``(I, M)`` (1 = best; NaN where no rater ranked the model)."""
    out = np.full((len(table.items), len(table.models)), np.nan)
    for i in range(len(table.items)):
        block = table.ranks[:, i, :]
        present = np.flatnonzero(~np.all(np.isnan(block), axis=0))
        if present.size == 0:
            continue
        p = pairwise_preferences(block[:, present])
        order, _, _ = kemeny_order(p)
        out[i, present[order]] = np.arange(1, present.size + 1)
    return out


def kemeny(
    rater: Sequence[str],
    item: Sequence[str],
    model: Sequence[str],
    rank: Sequence[float],
) -> KemenyResult:
    """Kemeny-Young consensus from long records (each (rater, item) is one ranking)."""
    return kemeny_table(ranking_table(rater, item, model, rank))
