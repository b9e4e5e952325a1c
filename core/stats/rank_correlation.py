"""Kendall's tau-b between raters, and of each rater against the Kemeny consensus.

tau-b is computed from the contingency table of the two value sequences (ranks take
few distinct values, so this is ``O(n + A*B)``); very wide tables fall back to
``scipy.stats.kendalltau``.  p-values follow scipy's ``method='auto'``: the exact
null distribution when there are no ties and ``n <= 33``, otherwise the normal
approximation with the tie-corrected variance.

Between two raters, tau-b is taken over all (item, model) rank values both gave,
pooled into one pair of sequences (ADR 013).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from core.stats.kemeny import kemeny_per_item, kemeny_table
from core.stats.rankings import RankingTable

_MAX_TABLE_CELLS = 4_000_000


def _tie_stats(counts: np.ndarray) -> tuple[int, int, int]:
    c = counts[counts > 1].astype(np.int64)
    return (
        int((c * (c - 1) // 2).sum()),
        int((c * (c - 1) * (c - 2)).sum()),
        int((c * (c - 1) * (2 * c + 5)).sum()),
    )


def _exact_p(n: int, c: int) -> float:
    """Two-sided exact p: ``2 * P(inversions <= c)`` for a random permutation of n."""
    c = min(c, n * (n - 1) // 2 - c)
    dist = np.zeros(c + 1)
    dist[0] = 1.0
    for j in range(2, n + 1):  # insert element j: adds 0..j-1 inversions
        cs = np.cumsum(dist)
        new = cs.copy()
        if j <= c:
            new[j:] -= cs[: c + 1 - j]
        dist = new / j
    return float(min(1.0, 2.0 * dist.sum()))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(tau_b, p)`` for paired finite values; ``(nan, nan)`` when undefined."""
    from scipy import special, stats  # on use: scipy.stats takes ~0.4 s to import

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-d arrays of the same length")
    n = x.size
    if n < 2:
        return math.nan, math.nan
    xu, xi = np.unique(x, return_inverse=True)
    yu, yi = np.unique(y, return_inverse=True)
    a, b = xu.size, yu.size
    if a * b > _MAX_TABLE_CELLS:
        res = stats.kendalltau(x, y)
        return float(res.statistic), float(res.pvalue)
    t = np.bincount(xi * b + yi, minlength=a * b).reshape(a, b).astype(np.int64)
    # suffix sums: s[i, j] = sum_{i' >= i, j' >= j} t
    s = np.zeros((a + 1, b + 1), dtype=np.int64)
    s[:a, :b] = t[::-1, ::-1].cumsum(0).cumsum(1)[::-1, ::-1]
    # column-prefix below: q[i, j] = sum_{i' >= i, j' < j} t
    rows_below = np.zeros((a + 1, b), dtype=np.int64)
    rows_below[:a] = t[::-1].cumsum(0)[::-1]
    q = np.zeros((a + 1, b + 1), dtype=np.int64)
    q[:, 1:] = rows_below.cumsum(1)
    con = int((t * s[1:, 1:]).sum())
    dis = int((t * q[1:, :b]).sum())
    tot = n * (n - 1) // 2
    xtie, x0, x1 = _tie_stats(np.bincount(xi))
    ytie, y0, y1 = _tie_stats(np.bincount(yi))
    if xtie == tot or ytie == tot:
        return math.nan, math.nan
    diff = con - dis
    tau = diff / math.sqrt(tot - xtie) / math.sqrt(tot - ytie)
    tau = max(-1.0, min(1.0, tau))
    if xtie == 0 and ytie == 0 and (n <= 33 or min(dis, tot - dis) <= 1):
        p = _exact_p(n, dis)
    else:
        m = n * (n - 1.0)
        var = (m * (2 * n + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m
        if n > 2:
            var += x0 * y0 / (9 * m * (n - 2))
        z = diff / math.sqrt(var)
        p = float(min(1.0, special.erfc(abs(z) / math.sqrt(2))))
    return float(tau), p


@dataclass(frozen=True)
class RaterPair:
    """tau-b between two raters (None when undefined: fewer than 2 shared values or constant)."""

    a: str
    b: str
    tau_b: float | None
    p: float | None
    n: int  # shared (item, model) values


def _none_if_nan(v: float) -> float | None:
    return None if math.isnan(v) else v


def rater_pairs(table: RankingTable) -> list[RaterPair]:
    """tau-b for every pair of raters over the (item, model) values both ranked."""
    flat = table.ranks.reshape(len(table.raters), -1)
    out = []
    for i, j in combinations(range(len(table.raters)), 2):
        both = ~np.isnan(flat[i]) & ~np.isnan(flat[j])
        tau, p = kendall_tau_b(flat[i, both], flat[j, both])
        out.append(
            RaterPair(
                table.raters[i],
                table.raters[j],
                _none_if_nan(tau),
                _none_if_nan(p),
                int(both.sum()),
            )
        )
    return out


def rater_matrix(table: RankingTable) -> np.ndarray:
    """Per-rater tau-b matrix ``(R, R)`` (diagonal 1, NaN where undefined)."""
    k = len(table.raters)
    m = np.eye(k)
    idx = {r: i for i, r in enumerate(table.raters)}
    for pr in rater_pairs(table):
        v = math.nan if pr.tau_b is None else pr.tau_b
        m[idx[pr.a], idx[pr.b]] = m[idx[pr.b], idx[pr.a]] = v
    return m


def vs_consensus(table: RankingTable, per_item: bool = False) -> dict[str, float | None]:
    """tau-b of each rater's ranks against the Kemeny consensus.

    Default: the consensus over all rankings, applied to every item the rater ranked.
    ``per_item=True``: a separate consensus of all raters for each item (ECHO's
    per-sample human consensus).
    """
    if per_item:
        ref = kemeny_per_item(table)  # (I, M)
    else:
        pos = kemeny_table(table).positions()
        ref = np.broadcast_to(pos, (len(table.items), len(table.models)))
    ref_flat = np.asarray(ref, dtype=float).reshape(-1)
    out: dict[str, float | None] = {}
    for r, name in enumerate(table.raters):
        x = table.ranks[r].reshape(-1)
        ok = ~np.isnan(x) & ~np.isnan(ref_flat)
        tau, _ = kendall_tau_b(x[ok], ref_flat[ok])
        out[name] = _none_if_nan(tau)
    return out
