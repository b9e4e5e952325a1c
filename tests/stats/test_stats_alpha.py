"""Krippendorff's alpha: the 2011 worked example and the ``krippendorff`` package."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from core.stats import LEVELS, AlphaUndefinedError, alpha, alpha_records

NAN = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers x 12 units, values 1..5, missing data.
EXAMPLE = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", LEVELS)
def test_published_example(level: str) -> None:
    value = alpha(EXAMPLE, level)
    assert value == pytest.approx(PUBLISHED[level], abs=5e-4)
    ref = krippendorff.alpha(reliability_data=EXAMPLE, level_of_measurement=level)
    assert value == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(15))
def test_matches_package_with_missing_values(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    raters, units = int(rng.integers(2, 7)), int(rng.integers(3, 60))
    truth = rng.integers(1, 6, units)
    data = np.clip(truth + rng.integers(-1, 2, (raters, units)), 1, 5).astype(float)
    data[rng.random(data.shape) < 0.25] = NAN
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert alpha(data, level) == pytest.approx(ref, abs=1e-9)


def test_continuous_interval_values() -> None:
    rng = np.random.default_rng(5)
    data = rng.normal(size=(5, 40)) + rng.normal(size=40)
    data[0, :5] = NAN
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert alpha(data, "interval") == pytest.approx(ref, abs=1e-9)


def test_records_and_perfect_agreement() -> None:
    rater = ["a", "b", "a", "b", "c"]
    unit = ["u1", "u1", "u2", "u2", "u2"]
    assert alpha_records(rater, unit, [1, 1, 2, 2, 2], "nominal") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="more than once"):
        alpha_records(["a", "a"], ["u", "u"], [1, 2])


def test_undefined_cases_raise_clear_errors() -> None:
    with pytest.raises(AlphaUndefinedError, match="same value"):
        alpha(np.full((3, 5), 4.0), "interval")
    with pytest.raises(AlphaUndefinedError, match="two raters"):
        alpha(np.array([[1.0, 2.0, 3.0]]), "interval")  # a single rater
    with pytest.raises(AlphaUndefinedError, match="no ratings"):
        alpha(np.full((2, 2), NAN))
    with pytest.raises(AlphaUndefinedError):
        alpha(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="unknown level"):
        alpha(EXAMPLE, "cardinal")
    with pytest.raises(ValueError, match="negative"):
        alpha(np.array([[-1.0, 2.0], [1.0, 2.0]]), "ratio")
