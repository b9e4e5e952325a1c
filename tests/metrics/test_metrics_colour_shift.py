"""Colour shift: histogram distance and Lab shifts on crafted images with known answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from metrics_helpers import gradient_image, pair, save, yellow_tint
from PIL import Image

from core.metrics.colour_shift import channel_histograms, colour_shift, srgb_to_lab
from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import MetricSettings


def test_lab_matches_published_values() -> None:
    lab = srgb_to_lab(np.array([[255, 255, 255], [255, 0, 0], [0, 0, 0], [255, 255, 0]],
                               np.uint8))
    assert lab[0] == pytest.approx([100.0, 0.0, 0.0], abs=0.01)
    assert lab[1] == pytest.approx([53.24, 80.09, 67.20], abs=0.02)  # sRGB red, D65
    assert lab[2] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    assert lab[3][2] > 90  # yellow is strongly positive on b*


def test_histogram_distance_by_hand() -> None:
    white = np.full((10, 10, 3), 255, np.uint8)
    half = white.copy()
    half[:5] = 0
    # half the pixels moved from the top bin to the bottom bin in every channel: TV = 0.5
    res = colour_shift(white, half)
    assert res.value == pytest.approx(0.5)
    assert res.details["histogram_distance"] == {"R": 0.5, "G": 0.5, "B": 0.5}
    h = channel_histograms(half)
    assert h.shape == (3, 32) and h[:, 0] == pytest.approx([0.5] * 3)
    assert h.sum(axis=1) == pytest.approx([1.0] * 3)


def test_identical_images_give_zero(tmp_path: Path, worker) -> None:
    a = save(gradient_image(), tmp_path / "a.png")
    b = save(gradient_image(), tmp_path / "b.png")
    (res,) = evaluate(get("colour_shift"), [pair(a, b)], MetricSettings(), worker=worker)
    assert res.status == "ok"
    assert res.value == 0.0
    assert res.details["b_shift"] == 0.0 and res.details["L_shift"] == 0.0


def test_yellow_tint_gives_positive_b_shift(tmp_path: Path, worker) -> None:
    base = gradient_image()
    a = save(base, tmp_path / "a.png")
    b = save(yellow_tint(base), tmp_path / "b.png")
    blue = save(Image.fromarray((np.asarray(base) * [0.8, 0.8, 1.0]).astype(np.uint8)),
                tmp_path / "c.png")
    yellow, bluish = evaluate(get("colour_shift"), [pair(a, b), pair(a, blue)],
                              MetricSettings(), worker=worker)
    assert yellow.details["b_shift"] > 5
    assert yellow.value > 0.1
    assert bluish.details["b_shift"] < 0  # the sign tells yellow from blue


def test_not_applicable_without_input() -> None:
    from core.metrics.base import ImageRef, PairItem

    item = PairItem("s", "m", "p", (), ImageRef("x" * 64, None))
    assert "no input" in get("colour_shift").applicable(item)


def test_broken_image_is_an_error_naming_it(tmp_path: Path, worker) -> None:
    a = save(gradient_image(), tmp_path / "a.png")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    (res,) = evaluate(get("colour_shift"), [pair(a, bad)], MetricSettings(), worker=worker)
    assert res.status == "error" and res.error.endswith("truncated PNG: Truncated File Read")
