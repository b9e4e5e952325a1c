"""Kendall tau-b against scipy.stats.kendalltau; rater pairs and vs-consensus."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from core.stats import (
    kemeny_table,
    kendall_tau_b,
    ranking_table,
    rater_matrix,
    rater_pairs,
    vs_consensus,
)
from core.stats.kemeny import kemeny_per_item


def _random_pair(rng: np.random.Generator, kind: int):
    n = int(rng.integers(2, 80))
    if kind == 0:  # no ties (exact p for n <= 33)
        x = rng.permutation(n).astype(float)
        y = x + rng.normal(scale=n / 3, size=n)
    elif kind == 1:  # ranks with ties
        x = rng.integers(1, 5, n).astype(float)
        y = np.clip(x + rng.integers(-1, 2, n), 1, 4)
    elif kind == 2:  # continuous
        x = rng.normal(size=n)
        y = rng.normal(size=n)
    else:  # many ties on one side
        x = rng.integers(0, 2, n).astype(float)
        y = rng.permutation(n).astype(float)
    return x, y


@pytest.mark.parametrize("kind", range(4))
@pytest.mark.parametrize("seed", range(25))
def test_matches_scipy(kind: int, seed: int) -> None:
    x, y = _random_pair(np.random.default_rng(seed * 10 + kind), kind)
    tau, p = kendall_tau_b(x, y)
    ref = stats.kendalltau(x, y, variant="b")
    if np.isnan(ref.statistic):
        assert np.isnan(tau)
        return
    assert tau == pytest.approx(ref.statistic, abs=1e-12)
    assert p == pytest.approx(ref.pvalue, abs=1e-12)


def test_exact_p_near_boundaries() -> None:
    x = np.arange(10.0)
    for y in (x, x[::-1], np.r_[x[1::-1], x[2:]]):
        tau, p = kendall_tau_b(x, y)
        ref = stats.kendalltau(x, y)
        assert (tau, p) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-12)


def test_undefined() -> None:
    assert np.isnan(kendall_tau_b(np.ones(5), np.arange(5.0))[0])
    assert np.isnan(kendall_tau_b(np.array([1.0]), np.array([2.0]))[0])


def _table(seed: int, raters: int = 4, items: int = 12, models: int = 5, missing: float = 0.0):
    rng = np.random.default_rng(seed)
    true = rng.normal(size=models)
    rec = ([], [], [], [])
    for r in range(raters):
        for i in range(items):
            noisy = true + rng.normal(scale=1.0 + r, size=models)
            ranks = np.argsort(np.argsort(-noisy)) + 1
            for m in range(models):
                if rng.random() >= missing:
                    for lst, v in zip(
                        rec, (f"r{r}", f"i{i:02d}", f"m{m}", int(ranks[m])), strict=True
                    ):
                        lst.append(v)
    return ranking_table(*rec)


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_rater_pairs_pool_shared_values(missing: float) -> None:
    t = _table(1, missing=missing)
    pairs = rater_pairs(t)
    assert [(p.a, p.b) for p in pairs] == [
        ("r0", "r1"), ("r0", "r2"), ("r0", "r3"), ("r1", "r2"), ("r1", "r3"), ("r2", "r3"),
    ]  # fmt: skip
    for pr in pairs:
        xa = t.ranks[t.raters.index(pr.a)].reshape(-1)
        xb = t.ranks[t.raters.index(pr.b)].reshape(-1)
        ok = ~np.isnan(xa) & ~np.isnan(xb)
        ref = stats.kendalltau(xa[ok], xb[ok], variant="b")
        assert pr.tau_b == pytest.approx(ref.statistic, abs=1e-12)
        assert pr.p == pytest.approx(ref.pvalue, abs=1e-12)
        assert pr.n == ok.sum()
    m = rater_matrix(t)
    assert np.allclose(m, m.T) and np.all(np.diag(m) == 1)


def test_vs_consensus_global_and_per_item() -> None:
    t = _table(2)
    cons = kemeny_table(t).positions()
    got = vs_consensus(t)
    for r, name in enumerate(t.raters):
        x = t.ranks[r].reshape(-1)
        y = np.tile(cons, len(t.items))
        assert got[name] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    per = kemeny_per_item(t).reshape(-1)
    got_item = vs_consensus(t, per_item=True)
    for r, name in enumerate(t.raters):
        ref = stats.kendalltau(t.ranks[r].reshape(-1), per).statistic
        assert got_item[name] == pytest.approx(ref, abs=1e-12)
    # the least noisy rater agrees most with the consensus
    assert got["r0"] > got["r3"]


def test_single_rater_and_constant_ranks() -> None:
    t = ranking_table(["r"] * 3, ["i"] * 3, ["A", "B", "C"], [1, 2, 3])
    assert rater_pairs(t) == []
    assert vs_consensus(t) == {"r": pytest.approx(1.0)}
    tied = ranking_table(["r", "r", "s", "s"], ["i"] * 4, ["A", "B"] * 2, [1, 1, 1, 2])
    pr = rater_pairs(tied)[0]
    assert pr.tau_b is None and pr.p is None  # rater r ties everything: undefined, not NaN
