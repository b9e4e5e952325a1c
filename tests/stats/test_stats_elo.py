"""Elo scale from BT strengths and the vectorized (multinomial) vote bootstrap."""

from __future__ import annotations

import choix
import numpy as np
import pytest

from core.stats import elo, elo_from_strengths, elo_ratings, fit_strengths, win_matrix
from core.stats.elo import bootstrap_elo
from core.stats.votes import A_WINS, B_WINS, TIE, Votes, resample_cells, vote_cells


def _votes(seed: int, k: int = 4, n: int = 600, tie_p: float = 0.1) -> Votes:
    rng = np.random.default_rng(seed)
    true = np.linspace(-1, 1, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(true[a] - true[b])))
    out = np.where(rng.random(n) < tie_p, TIE, np.where(rng.random(n) < p, A_WINS, B_WINS))
    return Votes(tuple(f"m{i}" for i in range(k)), a, b, out.astype(np.int8))


def test_elo_scale_definition() -> None:
    pi = np.array([4.0, 1.0, 0.25])
    e = elo_from_strengths(pi)
    assert np.isclose(e.mean(), 1000.0)
    np.testing.assert_allclose(e, 1000 + 400 * np.log10(pi / np.exp(np.mean(np.log(pi)))))
    # a factor 10 in strength is 400 Elo points
    np.testing.assert_allclose(elo_from_strengths(np.array([10.0, 1.0])), [1200.0, 800.0])


def test_point_estimate_matches_choix() -> None:
    v = _votes(1, tie_p=0.0)
    data = [
        (int(x), int(y)) if o == A_WINS else (int(y), int(x))
        for x, y, o in zip(v.a, v.b, v.outcome, strict=True)
    ]
    theta = choix.ilsr_pairwise(4, data, tol=1e-13)
    expected = 1000 + 400 / np.log(10) * (theta - theta.mean())
    res = elo_ratings(v, n_boot=0)
    np.testing.assert_allclose(res.elo, expected, atol=1e-6)
    np.testing.assert_array_equal(res.lo, res.elo)


def test_interval_properties_and_reproducibility() -> None:
    v = _votes(2)
    r95 = elo_ratings(v, n_boot=400, ci=0.95, seed=7)
    r99 = elo_ratings(v, n_boot=400, ci=0.99, seed=7)
    again = elo_ratings(v, n_boot=400, ci=0.95, seed=7)
    np.testing.assert_array_equal(r95.lo, again.lo)
    assert np.all(r95.lo <= r95.elo) and np.all(r95.elo <= r95.hi)
    assert np.all(r99.lo <= r95.lo) and np.all(r99.hi >= r95.hi)
    d = r95.ratings_dict()
    assert list(d) == ["m3", "m2", "m1", "m0"]
    assert set(d["m0"]) == {"elo", "lo", "hi"}


def test_multinomial_resampling_is_a_vote_bootstrap() -> None:
    v = _votes(3, n=300)
    cells = vote_cells(v.a, v.b, v.outcome, 4)
    counts = resample_cells(cells, 20000, np.random.default_rng(0))
    assert np.all(counts.sum(axis=1) == 300)
    # expected count per cell = original count, variance = n p (1 - p)
    p = cells.counts / 300
    np.testing.assert_allclose(counts.mean(axis=0), cells.counts, atol=0.05 * cells.counts.max())
    np.testing.assert_allclose(counts.var(axis=0), 300 * p * (1 - p), rtol=0.1)


def test_vectorized_bootstrap_matches_naive_bootstrap() -> None:
    """Quantiles from the cell bootstrap agree with a vote-by-vote resampling loop."""
    v = _votes(4, k=3, n=400)
    boot, _ = bootstrap_elo(vote_cells(v.a, v.b, v.outcome, 3), 2000, seed=1)
    rng = np.random.default_rng(2)
    naive = []
    for _ in range(2000):
        idx = rng.integers(0, len(v), len(v))
        pi, _ = fit_strengths(win_matrix(v.a[idx], v.b[idx], v.outcome[idx], 3))
        naive.append(elo_from_strengths(pi))
    naive = np.asarray(naive)
    for q in (0.025, 0.5, 0.975):
        np.testing.assert_allclose(
            np.quantile(boot, q, axis=0), np.quantile(naive, q, axis=0), atol=4.0
        )
    np.testing.assert_allclose(boot.std(axis=0), naive.std(axis=0), rtol=0.1)


def test_sparse_votes_use_map_in_resamples() -> None:
    res = elo(["x", "y", "z", "x"], ["y", "z", "x", "z"], ["a", "a", "a", "b"], n_boot=200, seed=0)
    assert res.method == "ml"
    assert res.n_boot_map > 0  # some resamples lose a win or a loss
    assert np.all(np.isfinite(res.lo)) and np.all(np.isfinite(res.hi))


def test_errors() -> None:
    with pytest.raises(ValueError, match="no votes"):
        elo([], [], [])
    with pytest.raises(ValueError, match="ci"):
        elo(["x"], ["y"], ["a"], ci=1.5)
    with pytest.raises(ValueError, match="bootstrap"):
        elo(["x"], ["y"], ["a"], n_boot=-1)


def test_all_ties_give_equal_ratings() -> None:
    res = elo(["x", "y", "z"] * 4, ["y", "z", "x"] * 4, ["tie"] * 12, n_boot=100, seed=0)
    np.testing.assert_allclose(res.elo, 1000.0)
    np.testing.assert_allclose(res.lo, 1000.0)
    np.testing.assert_allclose(res.hi, 1000.0)


# -- the interval holds its point estimate (ADR 183) -------------------------------------
SMALL_VOTE_SETS = [
    ("A,B,a",),  # the report's case: one vote, a zero-width interval
    ("A,B,a", "A,B,a"),
    ("A,B,a", "A,B,b"),
    ("A,B,tie",),
    ("A,B,a", "B,C,a"),
    ("A,B,a", "B,C,a", "C,A,a"),
    ("A,B,a", "B,C,b", "C,D,tie", "D,A,a", "A,C,a"),
]


def _named(rows: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    cols = list(zip(*(r.split(",") for r in rows), strict=True))
    return list(cols[0]), list(cols[1]), list(cols[2])


@pytest.mark.parametrize("rows", SMALL_VOTE_SETS)
@pytest.mark.parametrize(("n_boot", "ci", "seed"), [(20, 0.95, 0), (7, 0.5, 3), (200, 0.99, 11)])
def test_interval_contains_the_point_estimate(rows, n_boot, ci, seed) -> None:
    res = elo(*_named(rows), n_boot=n_boot, ci=ci, seed=seed)
    assert np.all(res.lo <= res.elo) and np.all(res.elo <= res.hi), (res.lo, res.elo, res.hi)
    for r in res.ratings_dict().values():
        assert r["lo"] <= r["elo"] <= r["hi"]


def test_containing_widens_only_where_needed() -> None:
    from core.stats.intervals import containing

    lo, hi = containing(np.array([1.0, 2.0, 3.0]), np.array([0.5, 2.5, 3.0 + 3e-10]),
                        np.array([1.5, 3.0, 4.0]))
    np.testing.assert_array_equal(lo, [0.5, 2.0, 3.0])
    np.testing.assert_array_equal(hi, [1.5, 3.0, 4.0])
