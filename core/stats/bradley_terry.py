"""Bradley-Terry strengths by Newman's (2023) iteration, ML or MAP.

Newman, "Efficient computation of rankings from pairwise comparisons", JMLR 24(238),
2023.  With ``W[i, j]`` the wins of ``i`` over ``j`` (ties count half to each side):

* ML, eq. 12:  ``pi_i <- sum_j W_ij pi_j/(pi_i+pi_j) / sum_j W_ji/(pi_i+pi_j)``,
  renormalized to geometric mean 1 after every step (the likelihood is scale free).
  Its maximum exists and is unique exactly when the directed "i beat j" graph is
  strongly connected (which implies every model has a win and a loss).
* MAP, eq. 26 (logistic prior = one virtual win and one virtual loss against a
  virtual player of strength 1): ``pi_i <- (1/(pi_i+1) + sum_j W_ij pi_j/(pi_i+pi_j)) /
  (1/(pi_i+1) + sum_j W_ji/(pi_i+pi_j))``, no renormalization (the prior fixes the scale).

``method="auto"`` uses ML when the data allow it and MAP otherwise (see ADR 010).
All routines accept one matrix ``(K, K)`` or a batch ``(B, K, K)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from core.stats.bt_start import newton_start
from core.stats.votes import Votes, encode_votes, win_matrix

DEFAULT_TOL = 1e-10
DEFAULT_MAX_ITER = 100_000
#: Sweeps after which matrices still moving get a Newton jump (ADR 021).
NEWTON_AFTER = 50


def strongly_connected(w: np.ndarray) -> np.ndarray:
    """Whether the graph with an edge i→j when ``w[i, j] > 0`` is strongly connected.

    Works on ``(K, K)`` (returns a 0-d bool array) or a batch ``(B, K, K)``; each
    matrix is one linear-time graph search (``scipy.sparse.csgraph``), so memory stays
    O(K²) and time does not grow with K³ as a transitive closure would.
    """
    w = np.asarray(w)
    flat = w.reshape(-1, *w.shape[-2:])
    out = np.fromiter(
        (connected_components(csr_matrix(m > 0), directed=True, connection="strong",
                              return_labels=False) == 1 for m in flat),
        dtype=bool, count=flat.shape[0])
    return out.reshape(w.shape[:-2])


def comparison_groups(w: np.ndarray) -> list[list[int]]:
    """Groups of models linked by comparisons (either direction), largest first.

    More than one group means the votes never compare the groups with each other: their
    relative places then rest on the MAP prior alone.
    """
    w = np.asarray(w)
    n, labels = connected_components(csr_matrix((w + w.T) > 0), directed=False)
    groups = [np.flatnonzero(labels == g).tolist() for g in range(n)]
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def ml_exists(w: np.ndarray) -> np.ndarray:
    """True where the ML estimate exists: strongly connected and every model has a win and a loss."""
    w = np.asarray(w, dtype=float)
    wins = w.sum(axis=-1)
    losses = w.sum(axis=-2)
    has_both = np.all((wins > 0) & (losses > 0), axis=-1)
    exists: np.ndarray = has_both & strongly_connected(w)
    return exists


_NO_ML = "maximum-likelihood Bradley-Terry scores do not exist for these votes"


def why_no_ml(models: Sequence[str], w: np.ndarray) -> str:
    """Why ``w`` has no ML estimate, naming a model (or a group) that makes the likelihood
    grow without bound: one that never loses or never wins, else a group of models that
    nobody outside it ever beats (a source of the strongly connected groups)."""
    for counts, words in ((w.sum(axis=0), "never loses"), (w.sum(axis=1), "never wins")):
        if (none := np.flatnonzero(counts <= 0)).size:
            more = (f" (and {none.size - 1:,} other model{'s' if none.size > 2 else ''})"
                    if none.size > 1 else "")
            return f"{models[int(none[0])]!r} {words}{more}"
    if len(groups := comparison_groups(w)) > 1:
        return f"the votes split into {len(groups):,} groups of models never compared"
    _, labels = connected_components(csr_matrix(w > 0), directed=True, connection="strong")
    _, losers = np.nonzero((w > 0) & (labels[:, None] != labels[None, :]))
    top = int(np.setdiff1d(labels, labels[losers])[0])  # a group nobody outside beats
    group = [models[int(i)] for i in np.flatnonzero(labels == top)]
    more = f", … {len(group) - 5:,} more" if len(group) > 5 else ""
    return f"no model outside ({', '.join(map(repr, group[:5]))}{more}) ever beats one of them"


def _iterate(w: np.ndarray, use_prior: np.ndarray, tol: float, max_iter: int,
             start: np.ndarray | None = None) -> np.ndarray:
    """Batched Newman iteration on ``w`` of shape ``(B, K, K)``.

    Each sweep updates the models one at a time in place (Gauss-Seidel order), every
    update vectorized over the batch; a simultaneous (Jacobi) update of eq. 12 can
    oscillate forever (two models: ``pi_1 <- (w_12/w_21) pi_2`` ignores ``pi_1``).
    ML strengths are renormalized to geometric mean 1 after each sweep.

    Sweeps start from ``pi = 1``, or from ``exp(start)`` (e.g. the full-data fit for a
    bootstrap resample).  Matrices still moving after :data:`NEWTON_AFTER` sweeps (wide
    sparse comparison graphs, where sweeps crawl) jump to Newton's maximum of the same
    likelihood (:mod:`core.stats.bt_start`); the sweeps that follow only confirm it.
    """
    b, k, _ = w.shape
    wt = np.ascontiguousarray(np.swapaxes(w, -1, -2))
    w = np.ascontiguousarray(w)
    prior = use_prior.astype(float)
    ml = ~use_prior
    pi = np.ones((b, k)) if start is None else np.exp(
        np.broadcast_to(np.asarray(start, dtype=float), (b, k))).copy()
    active = np.arange(b)
    for sweep in range(max_iter):
        if sweep == NEWTON_AFTER:
            pi[active] = np.exp(newton_start(w[active], use_prior[active],
                                             start=np.log(pi[active])))
        p = pi[active]
        old = p.copy()
        wa = w[active]
        wta = wt[active]
        pr = prior[active]
        for i in range(k):
            inv = 1.0 / (p[:, i : i + 1] + p)  # 1/(pi_i + pi_j), (B, K)
            num = np.einsum("bj,bj,bj->b", wa[:, i, :], p, inv)
            den = np.einsum("bj,bj->b", wta[:, i, :], inv)
            v = pr / (p[:, i] + 1.0)
            p[:, i] = (v + num) / (v + den)
        mlr = ml[active]
        if mlr.any():
            p[mlr] /= np.exp(np.mean(np.log(p[mlr]), axis=-1, keepdims=True))
        change = np.max(np.abs(np.log(p) - np.log(old)), axis=-1)
        pi[active] = p
        active = active[change >= tol]
        if active.size == 0:
            break
    return pi


def fit_strengths(
    w: np.ndarray,
    method: str = "auto",
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry strengths ``pi`` for win matrix/matrices ``w``.

    ``method`` is ``"ml"``, ``"map"`` or ``"auto"`` (ML where it exists, else MAP,
    decided per matrix).  Returns ``(pi, used_map)`` with ``pi`` of shape ``(K,)`` or
    ``(B, K)`` and ``used_map`` a bool (array).  ML strengths have geometric mean 1.
    """
    w = np.asarray(w, dtype=float)
    single = w.ndim == 2
    wb = w[None] if single else w
    if wb.ndim != 3 or wb.shape[-1] != wb.shape[-2]:
        raise ValueError("win matrix must be square")
    if np.any(wb < 0) or not np.all(np.isfinite(wb)):
        raise ValueError("win matrix must be finite and non-negative")
    if wb.shape[-1] == 0:
        raise ValueError("no models")
    if method == "auto":
        use_prior = ~ml_exists(wb)
    elif method == "map":
        use_prior = np.ones(wb.shape[0], dtype=bool)
    elif method == "ml":
        ok = ml_exists(wb)
        if not np.all(ok):
            raise ValueError(
                f"{_NO_ML} (a model without a win or a loss, or a comparison graph that is "
                "not strongly connected); use method 'map'"
            )
        use_prior = np.zeros(wb.shape[0], dtype=bool)
    else:
        raise ValueError(f"unknown method {method!r} (expected ml, map or auto)")
    k = wb.shape[-1]
    pi = np.ones((wb.shape[0], 1)) if k == 1 else _iterate(wb, use_prior, tol, max_iter, start)
    return (pi[0], use_prior[0]) if single else (pi, use_prior)


def scores_from_strengths(pi: np.ndarray) -> np.ndarray:
    """Scores ``100 * pi / sum(pi)`` (last axis)."""
    pi = np.asarray(pi, dtype=float)
    scores: np.ndarray = 100.0 * pi / pi.sum(axis=-1, keepdims=True)
    return scores


@dataclass(frozen=True)
class BTResult:
    """Bradley-Terry fit: strengths, scores summing to 100, and the method used."""

    models: tuple[str, ...]
    strengths: np.ndarray
    scores: np.ndarray
    method: str  # "ml" or "map"
    #: groups of models the votes connect, largest first (one group: all comparable)
    components: tuple[tuple[str, ...], ...] = ()

    def scores_dict(self) -> dict[str, float]:
        """``{model: score}``, best first."""
        order = np.argsort(-self.scores, kind="stable")
        return {self.models[i]: float(self.scores[i]) for i in order}


def fit_votes(votes: Votes, method: str = "auto", tol: float = DEFAULT_TOL) -> BTResult:
    """Fit Bradley-Terry on encoded votes."""
    if len(votes) == 0:
        raise ValueError("no votes")
    w = win_matrix(votes.a, votes.b, votes.outcome, len(votes.models))
    if method == "ml" and not ml_exists(w):
        raise ValueError(f"{_NO_ML} ({why_no_ml(votes.models, w)}); use method 'map'")
    pi, used_map = fit_strengths(w, method=method, tol=tol)
    return BTResult(votes.models, pi, scores_from_strengths(pi), "map" if used_map else "ml",
                    named_groups(votes.models, w))


def named_groups(models: Sequence[str], w: np.ndarray) -> tuple[tuple[str, ...], ...]:
    """:func:`comparison_groups` of ``w`` as tuples of model names."""
    return tuple(tuple(models[i] for i in group) for group in comparison_groups(w))


def describe_groups(groups: Sequence[Sequence[str]], most: int = 3, names: int = 5) -> str:
    """``"2 groups of models that are never compared with each other: ('a', 'b');
    ('x', 'y')"``, naming the first ``most`` groups and ``names`` models of each, every
    name cut to a readable length (ADR 217)."""
    from core.visible_text import listed, short_name

    shown = [f"({listed([short_name(m) for m in g], names)})" for g in groups[:most]]
    more = f"; and {len(groups) - most:,} more" if len(groups) > most else ""
    return (f"{len(groups):,} groups of models that are never compared with each other: "
            + "; ".join(shown) + more)


def bradley_terry(
    a: Sequence[str],
    b: Sequence[str],
    winner: Sequence[str],
    method: str = "auto",
    models: Sequence[str] | None = None,
) -> BTResult:
    """Bradley-Terry scores from votes given as names (``winner`` in ``a | b | tie``)."""
    return fit_votes(encode_votes(a, b, winner, models), method=method)
