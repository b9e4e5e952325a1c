"""Plates on photos the plate finder was never tuned on (ADR 110's held-out split).

A few held-out photos of each set, released through the real path, measured with the
ADR 110 measures; the full evaluation (every held-out photo, every variant) is
benchmarks/plates_eval.py.  Skipped, naming what is missing, without the testdata or
the PP-OCR models; with ``CI`` set a missing testdata folder fails.
"""

from __future__ import annotations

import numpy as np
import pytest
from plate_helpers import need_text_models, plates_testdata

from core.imaging.anonymize import HideSpec
from core.imaging.detect import DetectSettings, detect_plates
from core.imaging.geometry import Geometry
from core.imaging.loading import decode_rgb, load_rgb
from core.imaging.plate_eval import (
    PlateTruth,
    annotated,
    detail_hidden,
    held_out,
    ocr_legible,
    variant,
)
from core.imaging.release import RenderJob, render_verified

SETTINGS = DetectSettings(face_detector="hog")  # plates are the subject; faces stay cheap
PER_SET = 4


def _held_out() -> dict[str, list[PlateTruth]]:
    folder = plates_testdata()
    need_text_models()
    return {sub: annotated(folder / sub, "eval")[:PER_SET] for sub in ("eu", "us")}


def _release(rgb: np.ndarray) -> tuple[np.ndarray, list[HideSpec]]:
    found = detect_plates(rgb, SETTINGS)
    specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
    labels = [f"#{i} (plate)" for i in range(len(specs))]
    data, _result = render_verified(RenderJob(rgb, specs, labels, Geometry()), SETTINGS)
    return decode_rgb(data), specs


def test_split_sizes_are_fixed() -> None:
    folder = plates_testdata()
    for sub, total, kept in (("eu", 108, 55), ("us", 100, 53)):
        photos = annotated(folder / sub, "all")
        assert len(photos) == total
        assert len(annotated(folder / sub, "eval")) == kept
        assert all(held_out(p.path.name) for p in annotated(folder / sub, "eval"))
        assert not any(held_out(p.path.name) for p in annotated(folder / sub, "tune"))


def test_held_out_plates_are_hidden_and_unreadable() -> None:
    sets = _held_out()
    scores, before, after = [], 0, 0
    for truths in sets.values():
        for truth in truths:
            rgb = load_rgb(truth.path)
            released, specs = _release(rgb)
            assert specs, f"{truth.path.name}: plate missed entirely"
            scores.append(detail_hidden(rgb, released, truth.quad))
            before += ocr_legible(rgb, truth.quad, truth.text)[0]
            after += ocr_legible(released, truth.quad, truth.text)[0]
    assert before >= len(scores) - 1  # the reader does read these plates before release
    assert after == 0
    # the target (≥ 99 % of plates ≥ 90 % hidden) is measured on all 108 held-out photos
    # by the benchmark; on this subset of 8 one plate scored 0.89 when the test was
    # written (docs/performance.md), so the guard allows one plate between 0.85 and 0.9
    assert sum(s >= 0.9 for s in scores) >= len(scores) - 1, scores
    assert min(scores) >= 0.85, scores


@pytest.mark.parametrize("kind", ["closeup", "rotate"])
def test_held_out_variants_are_hidden(kind: str) -> None:
    sets = _held_out()
    for sub, truths in sets.items():
        truth = truths[0 if kind == "closeup" else 1]
        rgb, quad = variant(load_rgb(truth.path), truth.quad, kind, seed=7)
        released, specs = _release(rgb)
        assert specs, f"{sub}/{truth.path.name} ({kind}): plate missed entirely"
        assert detail_hidden(rgb, released, quad) >= 0.9, (sub, truth.path.name, kind)
        assert not ocr_legible(released, quad, truth.text)[0], (sub, truth.path.name, kind)
