"""Friedman test and post-hoc tests against scipy and scikit-posthocs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
from scipy import stats

from core.stats import POSTHOC_METHODS, friedman, friedman_table, ranking_table


def _blocks(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(3, 60)), int(rng.integers(3, 9))
    effect = np.linspace(0, 1.5, k)
    if seed % 2:
        noisy = effect + rng.normal(size=(n, k))
        return np.argsort(np.argsort(noisy, axis=1), axis=1) + 1.0
    return rng.integers(1, 4, (n, k)).astype(float) + (effect > 1)  # ties


def _reference(v: np.ndarray, method: str) -> np.ndarray:
    k = v.shape[1]
    if method == "dunn":
        df = pd.DataFrame({"rank": v.reshape(-1), "model": np.tile(np.arange(k), v.shape[0])})
        return sp.posthoc_dunn(df, val_col="rank", group_col="model").to_numpy()
    fn = {
        "siegel": sp.posthoc_siegel_friedman,
        "conover": sp.posthoc_conover_friedman,
        "nemenyi": sp.posthoc_nemenyi_friedman,
    }[method]
    return fn(v).to_numpy()


@pytest.mark.parametrize("seed", range(12))
def test_statistic_matches_scipy(seed: int) -> None:
    v = _blocks(seed)
    res = friedman(v, [f"m{i}" for i in range(v.shape[1])])
    ref = stats.friedmanchisquare(*v.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("method", POSTHOC_METHODS)
@pytest.mark.parametrize("seed", range(8))
def test_posthoc_matches_scikit_posthocs(method: str, seed: int) -> None:
    v = _blocks(seed)
    k = v.shape[1]
    res = friedman(v, [str(i) for i in range(k)], posthoc=method)
    ref = _reference(v, method)
    m = k * (k - 1) // 2
    assert len(res.posthoc) == m
    for pr in res.posthoc:
        a, b = int(pr.a), int(pr.b)
        assert pr.p == pytest.approx(ref[a, b], abs=1e-9)
        expected_adj = ref[a, b] if method == "nemenyi" else min(1.0, ref[a, b] * m)
        assert pr.p_adj == pytest.approx(expected_adj, abs=1e-9)


def test_bonferroni_matches_scikit_posthocs_adjustment() -> None:
    v = _blocks(3)
    k = v.shape[1]
    df = pd.DataFrame({"rank": v.reshape(-1), "model": np.tile(np.arange(k), v.shape[0])})
    ref = sp.posthoc_dunn(df, val_col="rank", group_col="model", p_adjust="bonferroni").to_numpy()
    for pr in friedman(v, [str(i) for i in range(k)]).posthoc:
        assert pr.p_adj == pytest.approx(ref[int(pr.a), int(pr.b)], abs=1e-12)


def test_table_blocks_are_rater_item() -> None:
    rec = ([], [], [], [])
    rng = np.random.default_rng(0)
    for r in ("r1", "r2"):
        for i in ("i1", "i2", "i3"):
            for m, rank in zip("ABC", rng.permutation(3) + 1, strict=True):
                for lst, x in zip(rec, (r, i, m, int(rank)), strict=True):
                    lst.append(x)
    t = ranking_table(*rec)
    res = friedman_table(t)
    assert res.n_blocks == 6
    ref = stats.friedmanchisquare(*t.rankings().T)
    assert res.statistic == pytest.approx(ref.statistic)


def test_errors() -> None:
    t = ranking_table(
        ["r", "r", "r", "s", "s"], ["i"] * 5, ["A", "B", "C", "A", "B"], [1, 2, 3, 1, 2]
    )
    with pytest.raises(ValueError, match=r"rater 's' on item 'i' does not rank model\(s\) 'C'"):
        friedman_table(t)
    with pytest.raises(ValueError, match="ties all models"):
        friedman(np.ones((4, 3)), ["A", "B", "C"])
    with pytest.raises(ValueError, match="unknown post-hoc"):
        friedman(np.array([[1.0, 2.0, 3.0]]), ["A", "B", "C"], posthoc="tukey")
    with pytest.raises(ValueError, match="at least 2 models"):
        friedman(np.ones((3, 1)), ["A"])
