"""Pairwise votes: encoding names to indices and aggregating into win matrices.

A vote is ``(a, b, outcome)`` with ``outcome`` one of :data:`A_WINS`, :data:`B_WINS`,
:data:`TIE`.  Everything downstream (Bradley-Terry, Elo, bootstrap) works on the
aggregated *win matrix* ``W`` with ``W[i, j]`` = wins of ``i`` over ``j``, a tie adding
0.5 to both ``W[i, j]`` and ``W[j, i]``.

For the bootstrap the votes are reduced to their distinct *cells* (unordered pair,
outcome) with counts; resampling the votes with replacement is then exactly a
multinomial draw over the cells, and each draw is scattered back onto a win matrix.
Working memory is O(K²) per matrix, never O(cells × K²).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

A_WINS = 0
B_WINS = 1
TIE = 2

#: Most models a vote file may name: K × K float matrices are the statistics' working
#: memory (ADR 018), 2,000 models = 32 MB per matrix.
MAX_MODELS = 2000

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

    def win_matrices(self, counts: np.ndarray) -> np.ndarray:
        """Win matrices for count vectors ``counts`` (``(C,)`` or ``(B, C)``).

        Memory is the output's, ``B × K²`` floats: each outcome kind is scattered onto
        its own (unique) matrix cells, so no cells × K² operator is ever built.
        """
        counts = np.asarray(counts, dtype=float)
        k = self.n_models
        lead = counts.shape[:-1]
        flat = np.zeros((*lead, k * k))
        ij = self.i * k + self.j
        ji = self.j * k + self.i
        for kind, targets, weight in ((A_WINS, (ij,), 1.0), (B_WINS, (ji,), 1.0),
                                      (TIE, (ij, ji), 0.5)):
            sel = self.kind == kind
            if not sel.any():
                continue
            add = counts[..., sel] * weight
            for target in targets:  # a pair occurs once per kind: no repeated index
                flat[..., target[sel]] += add
        return flat.reshape((*lead, k, k))

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct compared pairs ``(i, j)`` with ``i < j``."""
        code = np.unique(self.i * self.n_models + self.j)
        return np.divmod(code, self.n_models)


def check_models(n_models: int) -> None:
    """Refuse a model count whose K × K matrices would not fit (before allocating them)."""
    if n_models > MAX_MODELS:
        raise ValueError(
            f"{n_models:,} models is more than the {MAX_MODELS:,} the pairwise statistics "
            f"handle (their win matrix alone would take {n_models**2 * 8 / 2**30:.1f} GiB "
            "per fit); check that the model columns hold model names"
        )


def vote_cells(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, n_models: int) -> VoteCells:
    """Reduce votes to distinct cells (unordered pair, outcome) with counts."""
    check_models(n_models)
    k = n_models
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    kind = np.asarray(outcome, dtype=np.int64)
    swapped = a > b  # a vote listed as (j, i): "a wins" means j won
    kind = np.where(swapped & (kind != TIE), A_WINS + B_WINS - kind, kind)
    code = (np.minimum(a, b) * k + np.maximum(a, b)) * 3 + kind
    counts = np.bincount(code)  # at most 3·K² entries
    nz = np.flatnonzero(counts)
    pair, kinds = np.divmod(nz, 3)
    i, j = np.divmod(pair, k)
    return VoteCells(k, i, j, kinds, counts[nz])


def resample_cells(
    cells: VoteCells, n_boot: int, rng: np.random.Generator
) -> np.ndarray:
    """``n_boot`` bootstrap resamples of the votes, as cell counts ``(n_boot, C)``.

    Drawing ``N`` votes with replacement from ``N`` votes is a multinomial draw with
    probabilities proportional to the cell counts.  Successive calls continue the same
    random stream, so drawing in batches gives the same resamples as one call.
    """
    n = cells.total
    if n == 0:
        raise ValueError("no votes to resample")
    p = cells.counts / n
    return rng.multinomial(n, p, size=n_boot)
