"""Pairwise votes: encoding names to indices and aggregating into win matrices.

A vote is ``(a, b, outcome)`` with ``outcome`` one of :data:`A_WINS`, :data:`B_WINS`,
:data:`TIE`.  Everything downstream (Bradley-Terry, Elo, bootstrap) works on the
aggregated *win matrix* ``W`` with ``W[i, j]`` = wins of ``i`` over ``j``, a tie adding
0.5 to both ``W[i, j]`` and ``W[j, i]``.

For the bootstrap the votes are reduced to their distinct *cells* (unordered pair,
outcome) with counts; resampling the votes with replacement is then exactly a
multinomial draw over the cells, and each draw maps back to a win matrix with one
matrix product.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

A_WINS = 0
B_WINS = 1
TIE = 2

#: Accepted spellings of the ``winner`` field (lower-cased).
WINNER_CODES = {"a": A_WINS, "b": B_WINS, "tie": TIE}


@dataclass(frozen=True)
class Votes:
    """Pairwise votes as index arrays over ``models``."""

    models: tuple[str, ...]
    a: np.ndarray  # int64, index into models
    b: np.ndarray  # int64
    outcome: np.ndarray  # int8: A_WINS, B_WINS or TIE

    def __len__(self) -> int:
        return int(self.a.size)


def encode_votes(
    a: Sequence[str],
    b: Sequence[str],
    winner: Sequence[str],
    models: Sequence[str] | None = None,
) -> Votes:
    """Build :class:`Votes` from model names and winners ``'a' | 'b' | 'tie'``.

    ``models`` fixes the model order (default: sorted names seen in the votes).
    """
    if not (len(a) == len(b) == len(winner)):
        raise ValueError("a, b and winner must have the same length")
    names = tuple(models) if models is not None else tuple(sorted(set(a) | set(b)))
    index = {m: i for i, m in enumerate(names)}
    try:
        ai = np.fromiter((index[m] for m in a), dtype=np.int64, count=len(a))
        bi = np.fromiter((index[m] for m in b), dtype=np.int64, count=len(b))
    except KeyError as exc:
        raise ValueError(f"model {exc.args[0]!r} is not in the model list") from None
    try:
        out = np.fromiter(
            (WINNER_CODES[str(w).strip().lower()] for w in winner), dtype=np.int8, count=len(winner)
        )
    except KeyError as exc:
        raise ValueError(f"winner must be one of a, b, tie, got {exc.args[0]!r}") from None
    if np.any(ai == bi):
        k = int(np.flatnonzero(ai == bi)[0])
        raise ValueError(f"vote {k + 1} compares model {names[ai[k]]!r} with itself")
    return Votes(names, ai, bi, out)


def win_matrix(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int) -> np.ndarray:
    """Aggregate votes into ``W`` (``W[i, j]`` = wins of i over j, ties half to each)."""
    cells = vote_cells(a, b, outcome, n_models)
    return cells.win_matrices(cells.counts)


@dataclass(frozen=True)
class VoteCells:
    """Distinct (i < j, outcome) cells with their vote counts."""

    n_models: int
    i: np.ndarray  # lower model index
    j: np.ndarray  # higher model index
    kind: np.ndarray  # A_WINS = i won, B_WINS = j won, TIE
    counts: np.ndarray  # int64 votes per cell

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def contribution(self) -> np.ndarray:
        """Matrix ``M`` (cells × K²) such that ``counts @ M`` is the flattened W."""
        k = self.n_models
        m = np.zeros((self.counts.size, k * k))
        rows = np.arange(self.counts.size)
        ij = self.i * k + self.j
        ji = self.j * k + self.i
        m[rows, ij] += np.where(self.kind == A_WINS, 1.0, 0.0) + np.where(
            self.kind == TIE, 0.5, 0.0
        )
        m[rows, ji] += np.where(self.kind == B_WINS, 1.0, 0.0) + np.where(
            self.kind == TIE, 0.5, 0.0
        )
        return m

    def win_matrices(self, counts: np.ndarray) -> np.ndarray:
        """Win matrices for count vectors ``counts`` (``(C,)`` or ``(B, C)``)."""
        counts = np.asarray(counts, dtype=float)
        flat = counts @ self.contribution()
        return flat.reshape(counts.shape[:-1] + (self.n_models, self.n_models))


def vote_cells(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int) -> VoteCells:
    """Reduce votes to distinct cells (unordered pair, outcome) with counts."""
    k = n_models
    a = np.asarray(a, dtype=np.int64)
    code = (a * k + np.asarray(b, dtype=np.int64)) * 3 + np.asarray(outcome, dtype=np.int64)
    # ordered (a, b, outcome) counts, then folded onto i < j on the small array
    ordered = np.bincount(code, minlength=3 * k * k).reshape(k, k, 3)
    folded = np.zeros((k, k, 3), dtype=np.int64)
    folded += ordered
    swapped = ordered.transpose(1, 0, 2)  # votes listed as (j, i): "a wins" means j won
    folded[:, :, A_WINS] += swapped[:, :, B_WINS]
    folded[:, :, B_WINS] += swapped[:, :, A_WINS]
    folded[:, :, TIE] += swapped[:, :, TIE]
    folded *= np.triu(np.ones((k, k), dtype=np.int64), 1)[:, :, None]
    flat = folded.reshape(-1)
    nz = np.flatnonzero(flat)
    pair, kind = np.divmod(nz, 3)
    i, j = np.divmod(pair, k)
    return VoteCells(k, i, j, kind, flat[nz])


def resample_cells(cells: VoteCells, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` bootstrap resamples of the votes, as cell counts ``(n_boot, C)``.

    Drawing ``N`` votes with replacement from ``N`` votes is a multinomial draw with
    probabilities proportional to the cell counts.
    """
    n = cells.total
    if n == 0:
        raise ValueError("no votes to resample")
    p = cells.counts / n
    return rng.multinomial(n, p, size=n_boot)
