"""Building blocks of the report: turning rows into the inputs of :mod:`core.stats`.

Only data reshaping lives here (votes from rankings or scores, rating matrices);
every statistic is computed by :mod:`core.stats` (ADR 070).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from core import stats
from core.stats.bradley_terry import describe_groups
from core.stats.votes import A_WINS, B_WINS, TIE, Votes, win_matrix

Row = dict[str, Any]


def col(rows: Sequence[Row], name: str) -> list[Any]:
    return [r[name] for r in rows]


def has(rows: Sequence[Row], name: str) -> bool:
    return bool(rows) and name in rows[0] and any(r.get(name) not in (None, "") for r in rows)


def group_by(rows: Sequence[Row], name: str) -> dict[str, list[Row]]:
    """Rows by the value of column ``name`` (missing → "(none)"), keys sorted."""
    out: dict[str, list[Row]] = {}
    for r in rows:
        v = r.get(name)
        out.setdefault("(none)" if v in (None, "") else str(v), []).append(r)
    return dict(sorted(out.items()))


def pair_votes(values: np.ndarray, models: Sequence[str]) -> Votes:
    """Votes from blocks ``(n, K)`` where a lower value is better (NaN = absent).

    Every block contributes one vote per pair of models it has both of: the lower
    value wins, equal values tie (rank-breaking of a ranking, or the pairwise
    outcomes of one judge's scores on one sample).
    """
    v = np.asarray(values, dtype=float)
    k = v.shape[1]
    i, j = np.triu_indices(k, 1)
    vi, vj = v[:, i], v[:, j]
    ok = ~np.isnan(vi) & ~np.isnan(vj)
    outcome = np.where(vi < vj, A_WINS, np.where(vi > vj, B_WINS, TIE)).astype(np.int8)
    a = np.broadcast_to(i, vi.shape)[ok]
    b = np.broadcast_to(j, vi.shape)[ok]
    return Votes(tuple(models), a.astype(np.int64), b.astype(np.int64), outcome[ok])


@dataclass
class PairwiseFit:
    """Bradley-Terry and Elo of one set of votes, per model (in ``models`` order)."""

    models: tuple[str, ...]
    votes: np.ndarray  # votes each model took part in
    win_rate: np.ndarray  # share of its votes won (ties half)
    bt: np.ndarray  # scores summing to 100
    elo: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    method: str  # "ml" | "map"
    n_boot_map: int
    #: groups of models the comparisons connect, largest first (one: all comparable)
    components: tuple[tuple[str, ...], ...] = ()

    def split_text(self, criterion: str = "") -> str | None:
        """The warning the leaderboard shows when the comparisons split into groups never
        compared with each other (as ``winnow stats`` says on stderr; ADR 021, 217)."""
        if len(self.components) < 2:
            return None
        where = f" ({criterion})" if criterion else ""
        return (f"Warning{where}: the comparisons split into "
                f"{describe_groups(self.components)}. Models in different groups cannot be "
                "compared: their relative ranks, win rates, BT/100 and Elo rest on the prior "
                "alone, not on the data.")

    def note(self) -> str:
        if self.method == "ml":
            return "Bradley-Terry by maximum likelihood (Newman's iteration)."
        return ("Bradley-Terry with Newman's prior (MAP): some model has no win or no loss, or "
                "the comparisons do not connect every model, so plain maximum likelihood "
                "does not exist.")


#: called between bootstrap batches of the analysis running in this context (it may
#: raise ``Cancelled``): the Elo bootstrap of 1,000 models takes minutes
_BOOT_PROGRESS: ContextVar[Callable[[int, int], None] | None] = ContextVar(
    "bootstrap_progress", default=None)


@contextmanager
def bootstrap_progress(callback: Callable[[int, int], None]) -> Iterator[None]:
    """Within the block, every :func:`fit_pairwise` calls ``callback(done, total)``
    after each batch of resamples (``analyze`` passes its job's Cancel check)."""
    token = _BOOT_PROGRESS.set(callback)
    try:
        yield
    finally:
        _BOOT_PROGRESS.reset(token)


def fit_pairwise(votes: Votes, n_boot: int, ci: float, seed: int | None) -> PairwiseFit:
    """BT/100 and Elo with a ``ci`` bootstrap interval for ``votes`` (via :mod:`core.stats`)."""
    k = len(votes.models)
    w = win_matrix(votes.a, votes.b, votes.outcome, k)
    games = (w + w.T).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(games > 0, w.sum(axis=1) / np.maximum(games, 1e-300), np.nan)
    bt = stats.fit_votes(votes)
    elo = stats.elo_ratings(votes, n_boot=n_boot, ci=ci, seed=seed,
                            progress=_BOOT_PROGRESS.get())
    return PairwiseFit(votes.models, games, rate, bt.scores, elo.elo, elo.lo, elo.hi,
                       bt.method, elo.n_boot_map, bt.components)


def dense(rows: Sequence[Row], rater: str, keys: Sequence[str], value: str,
          sign: float = 1.0) -> tuple[np.ndarray, tuple[str, ...], list[tuple]]:
    """``(data (raters, cells), raters, cells)`` with a cell per distinct key tuple."""
    cells = [tuple(r[k] for k in keys) for r in rows]
    data, raters = stats.rating_matrix(col(rows, rater), cells, [sign * float(r[value])
                                                                for r in rows])
    order: dict[tuple, int] = {}
    for c in cells:
        order.setdefault(c, len(order))
    return data, raters, list(order)


def pearson_matrix(data: np.ndarray) -> np.ndarray:
    """Pearson r between every two rows of ``(raters, cells)`` over the cells both have.

    NaN where fewer than 3 shared cells or a constant sequence (undefined).
    """
    from scipy import stats as sps  # on use: scipy.stats takes ~0.4 s to import

    d = np.asarray(data, dtype=float)
    n = d.shape[0]
    m = np.eye(n)
    for i, j in combinations(range(n), 2):
        ok = ~np.isnan(d[i]) & ~np.isnan(d[j])
        x, y = d[i, ok], d[j, ok]
        r = math.nan
        if x.size >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
            r = float(sps.pearsonr(x, y).statistic)
        m[i, j] = m[j, i] = r
    return m


def alpha_value(data: np.ndarray, level: str) -> float | str:
    """Krippendorff's alpha of ``(raters, units)``, or the reason it is undefined."""
    try:
        return stats.alpha(data, level)
    except stats.AlphaUndefinedError as exc:
        text = str(exc)
        prefix = "Krippendorff's alpha is undefined: "
        return "undefined: " + (text[len(prefix):] if text.startswith(prefix) else text)


def rater_filter(data: np.ndarray, raters: Sequence[str], threshold: float) -> stats.RaterFilter:
    return stats.filter_raters(data, raters, threshold)


def score_tensor(rows: Sequence[Row], sign: float) -> tuple[np.ndarray, tuple[str, ...],
                                                            tuple[str, ...], tuple[str, ...]]:
    """``(scores (J, N, K), judges, samples, models)`` with ``sign * score``."""
    from core.stats.winrate import score_tensor as _tensor

    judge = col(rows, "judge") if has(rows, "judge") else None
    return _tensor(col(rows, "sample"), col(rows, "model"),
                   [sign * float(s) for s in col(rows, "score")], judge)
