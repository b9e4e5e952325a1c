"""Pearson rater filtering and z-score calibration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from core.stats import (
    calibrate_per_criterion,
    correlation_with_others,
    filter_raters,
    rating_matrix,
    zscore_calibrate,
    zscore_params,
)


def _ratings(seed: int, raters: int = 5, cells: int = 60, missing: float = 0.2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, cells).astype(float)
    data = np.clip(truth + rng.normal(scale=0.8, size=(raters, cells)), 1, 5).round()
    data[-1] = rng.integers(1, 6, cells)  # one rater answers at random
    data[rng.random(data.shape) < missing] = np.nan
    return data


@pytest.mark.parametrize("seed", range(6))
def test_correlation_matches_pearsonr(seed: int) -> None:
    data = _ratings(seed)
    r, n = correlation_with_others(data)
    for i in range(data.shape[0]):
        others = np.delete(data, i, axis=0)
        has_other = (~np.isnan(others)).any(axis=0)
        ok = ~np.isnan(data[i]) & has_other
        mean_others = np.nanmean(others[:, ok], axis=0)
        ref = stats.pearsonr(data[i, ok], mean_others).statistic
        assert r[i] == pytest.approx(ref, abs=1e-12)
        assert n[i] == ok.sum()


def test_filter_drops_the_random_rater() -> None:
    data = _ratings(1, missing=0.0)
    res = filter_raters(data, ["a", "b", "c", "d", "random"], threshold=0.5)
    assert res.dropped_raters == ["random"]
    assert res.kept_raters == ["a", "b", "c", "d"]
    assert all(isinstance(c, float) for c in res.correlation)


def test_single_rater_and_constant_rater_are_undefined_not_nan() -> None:
    res = filter_raters(np.array([[1.0, 2.0, 3.0]]), ["only"])
    assert res.correlation == (None,) and res.kept == (True,)
    res = filter_raters(np.array([[3.0, 3.0, 3.0], [1.0, 2.0, 3.0], [2.0, 2.0, 4.0]]), "abc")
    assert res.correlation[0] is None


def test_rating_matrix_from_records() -> None:
    data, raters = rating_matrix(
        ["b", "a", "a"], [("u1", "IF"), ("u1", "IF"), ("u2", "IF")], [4, 5, 3]
    )
    assert raters == ("a", "b")
    np.testing.assert_array_equal(data, [[5, 3], [4, np.nan]])
    with pytest.raises(ValueError, match="more than once"):
        rating_matrix(["a", "a"], ["u", "u"], [1, 2])


def test_zscore_calibration_matches_human_moments() -> None:
    rng = np.random.default_rng(0)
    human = rng.normal(3.8, 0.7, 300)
    auto_ref = rng.normal(4.5, 0.3, 300)
    auto_all = rng.normal(4.5, 0.3, 1000)
    out = zscore_calibrate(auto_ref, human)
    assert out.mean() == pytest.approx(human.mean())
    assert out.std() == pytest.approx(human.std())
    params = zscore_params(auto_ref, human)
    np.testing.assert_allclose(
        zscore_calibrate(auto_all, human, auto_reference=auto_ref),
        (auto_all - auto_ref.mean()) / auto_ref.std() * human.std() + human.mean(),
    )
    np.testing.assert_allclose(params.apply(auto_all), zscore_calibrate(auto_all, human, auto_ref))
    # order is preserved
    assert np.all(np.diff(out[np.argsort(auto_ref)]) >= 0)


def test_calibration_per_criterion() -> None:
    auto = {"IF": np.array([4.0, 5.0, 4.5]), "VQ": np.array([2.0, 3.0, 4.0])}
    human = {"IF": np.array([1.0, 3.0]), "VQ": np.array([4.0, 4.0, 5.0, 3.0])}
    out = calibrate_per_criterion(auto, human)
    for c in auto:
        assert out[c].mean() == pytest.approx(human[c].mean())
        assert out[c].std() == pytest.approx(human[c].std())
    with pytest.raises(ValueError, match="no human scores for criterion 'IC'"):
        calibrate_per_criterion({"IC": np.array([1.0, 2.0])}, human)
    with pytest.raises(ValueError, match="constant"):
        zscore_calibrate(np.array([4.0, 4.0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="no human"):
        zscore_calibrate(np.array([4.0, 5.0]), np.array([]))
