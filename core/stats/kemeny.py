"""Kemeny-Young consensus ranking.

The consensus is the strict order maximizing the agreement
``sum over ordered pairs (i above j in the order) of P[i, j]`` where ``P[i, j]`` is
the number of input rankings putting ``i`` strictly above ``j`` (equivalently, it
minimizes the total Kendall distance to the inputs; ties in an input count for
neither side).

* Exact for up to :data:`EXACT_MAX_ITEMS` models: dynamic programming over subsets
  (Held-Karp style).  ``best[S]`` is the best agreement of an order of ``S`` placed
  at the bottom; putting ``x`` just above ``S`` gains ``sum_{s in S} P[x, s]``.  The
  subsets are processed by size, each layer vectorized with numpy.
* Beyond that: a documented heuristic (ADR 012) -- Copeland order, then local
  search by single-item moves until no move improves; the result says ``exact=False``.

Among several optimal orders the consensus is the first in model order (names sorted):
the order is read from the top, each place taking the first model an optimal order can
put there (ADR 202), as the heuristic's Copeland start breaks its ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.stats.rankings import (
    RankingTable,
    pairwise_preferences,
    ranking_table,
    rows_per_chunk,
)

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


def _exact_batch(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact orders for a batch of preference matrices ``(B, k, k)``: ``(orders (B, k), scores (B,))``.

    Among optimal orders, the first in model order: a set's ``choice`` is the first model
    that can head it optimally (strict ``>`` keeps the first), and orders are read from
    the top."""
    b, k, _ = p.shape
    n_masks = 1 << k
    # gain[:, mask, x] = sum_{s in mask} p[:, x, s]: x placed just above the set mask
    gain = np.zeros((b, n_masks, k))
    for bit in range(k):
        lo = 1 << bit
        gain[:, lo : 2 * lo] = gain[:, :lo] + p[:, :, bit][:, None, :]
    masks = np.arange(n_masks)
    popcount = np.zeros(n_masks, dtype=np.int64)
    for bit in range(k):
        popcount += (masks >> bit) & 1
    best = np.full((b, n_masks), -np.inf)
    best[:, 0] = 0.0
    choice = np.full((b, n_masks), -1, dtype=np.int64)
    for size in range(1, k + 1):
        layer = masks[popcount == size]
        layer_best = np.full((b, layer.size), -np.inf)
        layer_choice = np.full((b, layer.size), -1, dtype=np.int64)
        for x in range(k):
            sel = np.flatnonzero((layer >> x) & 1)
            prev = layer[sel] ^ (1 << x)
            cand = best[:, prev] + gain[:, prev, x]
            better = cand > layer_best[:, sel]
            layer_best[:, sel] = np.where(better, cand, layer_best[:, sel])
            layer_choice[:, sel] = np.where(better, x, layer_choice[:, sel])
        best[:, layer] = layer_best
        choice[:, layer] = layer_choice
    orders = np.empty((b, k), dtype=np.int64)
    mask = np.full(b, n_masks - 1)
    rows = np.arange(b)
    for pos in range(k):
        x = choice[rows, mask]
        orders[:, pos] = x
        mask = mask ^ (1 << x)
    return orders, best[:, n_masks - 1]


def _exact(p: np.ndarray) -> tuple[list[int], float]:
    orders, scores = _exact_batch(p[None])
    return [int(i) for i in orders[0]], float(scores[0])


def _best_move(d: np.ndarray, pos: int) -> int:
    """Where the model at ``pos`` gains most by moving (``pos`` itself when no move gains);
    ``d[j]`` is its margin over the model at ``j`` (``P[x, y] - P[y, x]``)."""
    # moved up to q < pos it passes order[q:pos]; down to q > pos, order[pos+1:q+1] pass it
    up = np.cumsum(d[:pos][::-1])[::-1] if pos > 0 else np.zeros(0)
    down = -np.cumsum(d[pos + 1 :])
    best_gain, target = 0.0, pos
    if up.size and up.max() > best_gain + 1e-9:
        best_gain, target = float(up.max()), int(np.argmax(up))
    if down.size and down.max() > best_gain + 1e-9:
        target = pos + 1 + int(np.argmax(down))
    return target


def _heuristic(p: np.ndarray) -> tuple[list[int], float]:
    """Copeland order, then sweeps that give every model in turn its best single move,
    until a sweep moves none: a local optimum (ADR 012).  A sweep is ``k`` vector
    operations of length ``k``, and a few sweeps suffice (2,000 models: seconds)."""
    margin = np.asarray(p, dtype=float) - np.asarray(p, dtype=float).T
    order = np.argsort(-margin.sum(axis=1), kind="stable")
    moved = True
    while moved:
        moved = False
        for x in order.copy():
            pos = int(np.flatnonzero(order == x)[0])
            target = _best_move(margin[x, order], pos)
            if target != pos:
                order = np.insert(np.delete(order, pos), target, x)
                moved = True
    found = [int(i) for i in order]
    return found, order_score(p, found)


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


def _item_preferences(sub: np.ndarray) -> np.ndarray:
    """``P`` of each item of ``sub`` ``(G, R, k)``: ``(G, k, k)`` counts over its raters."""
    with np.errstate(invalid="ignore"):
        p: np.ndarray = np.sum(sub[:, :, :, None] < sub[:, :, None, :], axis=1).astype(float)
    return p


def kemeny_per_item(table: RankingTable) -> np.ndarray:
    """Per-item consensus positions ``(I, M)`` (1 = best; NaN where no rater ranked the model).

    Items ranking the same set of models are solved together in one batched DP.
    """
    out = np.full((len(table.items), len(table.models)), np.nan)
    ranks = np.swapaxes(table.ranks, 0, 1)  # (I, R, M)
    present = ~np.all(np.isnan(ranks), axis=1)  # (I, M)
    groups: dict[bytes, list[int]] = {}
    for i in range(len(table.items)):
        if present[i].any():
            groups.setdefault(present[i].tobytes(), []).append(i)
    for members in groups.values():
        cols = np.flatnonzero(present[members[0]])
        rows = np.asarray(members)
        sub = ranks[np.ix_(rows, np.arange(ranks.shape[1]), cols)]  # (G, R, k)
        if cols.size <= EXACT_MAX_ITEMS:  # items batched, within the DP's and the
            step = max(1, min(4_000_000 // ((1 << cols.size) * cols.size),  # comparisons'
                              rows_per_chunk(cols.size) // sub.shape[1]))  # memory
            orders = np.concatenate(
                [_exact_batch(_item_preferences(sub[i : i + step]))[0]
                 for i in range(0, len(members), step)]
            )
        else:
            orders = np.array([_heuristic(pairwise_preferences(s))[0] for s in sub],
                              dtype=np.int64)
        pos = np.empty_like(orders)
        np.put_along_axis(pos, orders, np.arange(1, cols.size + 1)[None, :], axis=1)
        out[np.ix_(rows, cols)] = pos
    return out


def kemeny(
    rater: Sequence[str],
    item: Sequence[str],
    model: Sequence[str],
    rank: Sequence[float],
) -> KemenyResult:
    """Kemeny-Young consensus from long records (each (rater, item) is one ranking)."""
    return kemeny_table(ranking_table(rater, item, model, rank))
