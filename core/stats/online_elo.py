"""FastChat's online Elo: one sequential update per battle, K = 4 (ADR 024).

Every model starts at 1000; for a battle of ``a`` and ``b`` with score ``s`` (1 if
``a`` won, 0 if ``b`` won, 0.5 for a tie) ``E_a = 1 / (1 + 10^((R_b - R_a)/400))``,
``E_b = 1 / (1 + 10^((R_a - R_b)/400))``, ``R_a += K (s - E_a)``, ``R_b += K (1 - s - E_b)``
(``compute_elo`` in FastChat's ``elo_analysis.py``, which Chatbot Arena reported beside
its maximum-likelihood board).  The result depends on the order of the battles: battle
files are taken in ``tstamp`` order when every battle has one (FastChat sorts by it),
otherwise in file order.  The mean rating stays 1000.

Bootstrap (FastChat's ``get_bootstrap_result`` with ``compute_elo``): each resample
draws N battles with replacement *in random order* and replays them; the interval is
the quantiles of those replays, over the resamples in which the model played.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.stats.elo import ELO_BASE, ELO_SCALE, MAX_BOOTSTRAP, ratings_dict
from core.stats.votes import A_WINS, B_WINS, Votes

DEFAULT_K = 4.0
#: The largest K: one vote may move a rating by at most the Elo scale. Beyond it the
#: ratings leap apart and 10 ** (ΔR / 400) overflows (a K of 1e300 did, on the first vote).
MAX_K = ELO_SCALE
#: Most resampled battle indices drawn at once (B × chunk int64 = 8 MB per array).
_DRAW = 1_000_000


def online_elo(
    a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int, k: float = DEFAULT_K
) -> np.ndarray:
    """Ratings after replaying the battles in the given order (FastChat's formulas)."""
    rating = [ELO_BASE] * n_models
    score = {A_WINS: 1.0, B_WINS: 0.0}
    for x, y, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True):
        ra, rb = rating[x], rating[y]
        ea = 1 / (1 + 10 ** ((rb - ra) / ELO_SCALE))
        eb = 1 / (1 + 10 ** ((ra - rb) / ELO_SCALE))
        sa = score.get(o, 0.5)
        rating[x] += k * (sa - ea)
        rating[y] += k * (1 - sa - eb)
    return np.array(rating)


def bootstrap_online(
    votes: Votes,
    n_boot: int,
    k: float = DEFAULT_K,
    seed: int | None = None,
    check: Callable[[], None] | None = None,
) -> np.ndarray:
    """``(n_boot, K)`` ratings of replays of N battles drawn with replacement in random
    order; NaN where a model did not play in that replay.  Vectorized over resamples.

    ``check()`` is called between chunks of battles (it may raise to cancel: a replay of
    millions of battles takes minutes)."""
    n, m = len(votes), len(votes.models)
    rng = np.random.default_rng(seed)
    rating = np.full((n_boot, m), ELO_BASE)
    seen = np.zeros((n_boot, m), dtype=bool)
    rows = np.arange(n_boot)
    sa_of = np.array([1.0, 0.0, 0.5])[np.asarray(votes.outcome, dtype=np.int64)]
    chunk = max(1, _DRAW // max(1, n_boot))
    for start in range(0, n, chunk):
        if check is not None:
            check()
        idx = rng.integers(0, n, size=(n_boot, min(chunk, n - start)))
        xs, ys, ss = votes.a[idx], votes.b[idx], sa_of[idx]
        seen[np.repeat(rows, idx.shape[1]), xs.reshape(-1)] = True
        seen[np.repeat(rows, idx.shape[1]), ys.reshape(-1)] = True
        for t in range(idx.shape[1]):
            x, y, sa = xs[:, t], ys[:, t], ss[:, t]
            ra, rb = rating[rows, x], rating[rows, y]
            ea = 1 / (1 + 10 ** ((rb - ra) / ELO_SCALE))
            eb = 1 / (1 + 10 ** ((ra - rb) / ELO_SCALE))
            rating[rows, x] = ra + k * (sa - ea)
            rating[rows, y] = rb + k * (1 - sa - eb)
    return np.where(seen, rating, np.nan)


@dataclass(frozen=True)
class OnlineEloResult:
    """Online Elo in battle order, with bootstrap bounds."""

    models: tuple[str, ...]
    elo: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    ci: float
    n_boot: int
    k: float

    def ratings_dict(self) -> dict[str, dict[str, float]]:
        """``{model: {"elo", "lo", "hi"}}``, best first."""
        return ratings_dict(self.models, self.elo, self.lo, self.hi)


def online_elo_ratings(
    votes: Votes,
    order: np.ndarray | None = None,
    n_boot: int = 1000,
    ci: float = 0.95,
    k: float = DEFAULT_K,
    seed: int | None = None,
    check: Callable[[], None] | None = None,
) -> OnlineEloResult:
    """Online Elo of ``votes`` replayed in ``order`` (default: as given) with a bootstrap;
    ``check`` as in :func:`bootstrap_online`."""
    if len(votes) == 0:
        raise ValueError("no votes")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be between 0 and 1 (exclusive), got {ci}")
    if not (math.isfinite(k) and 0 < k <= MAX_K):
        raise ValueError(f"K must be a number from 0 to {MAX_K:g} (exclusive of 0), got {k}")
    if not 0 <= n_boot <= MAX_BOOTSTRAP:
        raise ValueError(f"bootstrap must be from 0 to {MAX_BOOTSTRAP:,} resamples, got {n_boot}")
    idx = np.arange(len(votes)) if order is None else np.asarray(order)
    elo = online_elo(votes.a[idx], votes.b[idx], votes.outcome[idx], len(votes.models), k)
    if n_boot == 0:
        lo, hi = elo.copy(), elo.copy()
    else:
        boot = bootstrap_online(votes, n_boot, k, seed, check)
        played = ~np.isnan(boot).all(axis=0)  # a model no replay drew keeps its estimate
        boot[:, ~played] = elo[~played]
        lo, hi = np.nanquantile(boot, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0)
    return OnlineEloResult(votes.models, elo, lo, hi, float(ci), int(n_boot), float(k))
