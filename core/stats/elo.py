"""Elo scale from Bradley-Terry strengths, with bootstrap confidence intervals.

``elo_i = 1000 + 400 * log10(pi_i / geometric_mean(pi))`` so the mean Elo is 1000.
Intervals: votes resampled with replacement (a multinomial draw over the distinct
(pair, outcome) cells, see :mod:`core.stats.votes`), Bradley-Terry refitted on every
resample at once (batched Newman iteration), and the ``(1-c)/2`` and ``(1+c)/2``
quantiles of each model's bootstrap Elo taken (ADR 011), widened to contain the point
estimate (ADR 183).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.stats.bradley_terry import DEFAULT_TOL, fit_strengths, named_groups
from core.stats.intervals import containing
from core.stats.votes import VoteCells, Votes, encode_votes, resample_cells, vote_cells

ELO_BASE = 1000.0
ELO_SCALE = 400.0


def elo_from_strengths(pi: np.ndarray) -> np.ndarray:
    """Elo ratings (last axis) relative to the geometric mean of ``pi``."""
    logp = np.log10(np.asarray(pi, dtype=float))
    elo: np.ndarray = ELO_BASE + ELO_SCALE * (logp - logp.mean(axis=-1, keepdims=True))
    return elo


@dataclass(frozen=True)
class EloResult:
    """Elo ratings with bootstrap interval bounds."""

    models: tuple[str, ...]
    elo: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    ci: float
    n_boot: int
    method: str  # BT method on the full data: "ml" or "map"
    n_boot_map: int  # resamples that needed the MAP prior
    #: groups of models the votes connect, largest first (one group: all comparable)
    components: tuple[tuple[str, ...], ...] = ()

    def ratings_dict(self) -> dict[str, dict[str, float]]:
        """``{model: {"elo", "lo", "hi"}}``, best first."""
        return ratings_dict(self.models, self.elo, self.lo, self.hi)

    def zero_width(self) -> tuple[str, ...]:
        """Models whose bootstrap interval has no width: every resample of their votes
        came out the same (too few, too uniform votes), which is not certainty."""
        if self.n_boot < 2:
            return ()
        flat = np.abs(self.hi - self.lo) < 1e-6
        return tuple(m for m, f in zip(self.models, flat, strict=True) if f)


def ratings_dict(
    models: tuple[str, ...], elo: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> dict[str, dict[str, float]]:
    """``{model: {"elo", "lo", "hi"}}``, best first (ties keep the models' order)."""
    order = np.argsort(-elo, kind="stable")
    return {
        models[i]: {"elo": float(elo[i]), "lo": float(lo[i]), "hi": float(hi[i])} for i in order
    }


#: Working memory one bootstrap batch may use (its win matrices and iteration arrays).
BATCH_BYTES = 64 * 2**20
#: Most bootstrap resamples (each refits Bradley-Terry; 100,000 is already hours).
MAX_BOOTSTRAP = 100_000


def batch_size(n_models: int, limit: int = 2000) -> int:
    """Resamples fitted together: ``limit``, fewer when ``K × K`` matrices are large."""
    return max(1, min(limit, BATCH_BYTES // (6 * 8 * max(1, n_models) ** 2)))


def bootstrap_elo(
    cells: VoteCells,
    n_boot: int,
    seed: int | None = None,
    tol: float = DEFAULT_TOL,
    batch: int = 2000,
    start: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Elo of every bootstrap resample: ``(elo (n_boot, K), used_map (n_boot,))``.

    Resamples are drawn and fitted batch by batch, so memory does not grow with
    ``n_boot`` beyond the ``(n_boot, K)`` result.  ``start`` (the full-data
    log-strengths) is where each resample's fit begins.  ``progress(done, n_boot)`` is
    called after each batch (a 1,000-model board takes minutes).
    """
    k = cells.n_models
    rng = np.random.default_rng(seed)
    step = batch_size(k, batch)
    out = np.empty((n_boot, k))
    used = np.empty(n_boot, dtype=bool)
    for first in range(0, n_boot, step):
        counts = resample_cells(cells, min(step, n_boot - first), rng)
        w = cells.win_matrices(counts)
        pi, used_map = fit_strengths(w, method="auto", tol=tol, start=start)
        out[first : first + step] = elo_from_strengths(pi)
        used[first : first + step] = used_map
        if progress is not None:
            progress(min(first + step, n_boot), n_boot)
    return out, used


def elo_ratings(
    votes: Votes,
    n_boot: int = 1000,
    ci: float = 0.95,
    seed: int | None = None,
    tol: float = DEFAULT_TOL,
    progress: Callable[[int, int], None] | None = None,
) -> EloResult:
    """Elo ratings of encoded votes with a ``ci`` bootstrap interval over ``n_boot`` resamples.

    With ``n_boot == 0`` the bounds equal the point estimate; ``progress`` as in
    :func:`bootstrap_elo`.
    """
    if len(votes) == 0:
        raise ValueError("no votes")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be between 0 and 1 (exclusive), got {ci}")
    if n_boot < 0:
        raise ValueError(f"bootstrap must be >= 0, got {n_boot}")
    if n_boot > MAX_BOOTSTRAP:
        raise ValueError(f"bootstrap must be at most {MAX_BOOTSTRAP:,} resamples, got {n_boot:,}")
    k = len(votes.models)
    if n_boot * k > MAX_BOOTSTRAP * 100:
        raise ValueError(
            f"{n_boot:,} resamples of {k:,} models would keep {n_boot * k * 8 / 2**30:.1f} GiB "
            "of bootstrap ratings; use fewer resamples"
        )
    cells = vote_cells(votes.a, votes.b, votes.outcome, k)
    w = cells.win_matrices(cells.counts)
    pi, used_map = fit_strengths(w, method="auto", tol=tol)
    elo = elo_from_strengths(pi)
    if n_boot == 0:
        lo, hi, n_map = elo.copy(), elo.copy(), 0
    else:
        boot, used = bootstrap_elo(cells, n_boot, seed=seed, tol=tol, start=np.log(pi),
                                   progress=progress)
        bounds = np.quantile(boot, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0)
        lo, hi = containing(elo, bounds[0], bounds[1])
        n_map = int(used.sum())
    return EloResult(
        votes.models, elo, lo, hi, float(ci), int(n_boot), "map" if used_map else "ml", n_map,
        named_groups(votes.models, w),
    )


def elo(
    a: Sequence[str],
    b: Sequence[str],
    winner: Sequence[str],
    n_boot: int = 1000,
    ci: float = 0.95,
    seed: int | None = None,
) -> EloResult:
    """Elo ratings with bootstrap intervals from votes given as names."""
    return elo_ratings(encode_votes(a, b, winner), n_boot=n_boot, ci=ci, seed=seed)
