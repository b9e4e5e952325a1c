"""Helpers for the plate tests: the OpenALPR testdata, the PP-OCR models, a drawn plate."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from anon_helpers import TESTDATA
from PIL import Image, ImageDraw

from core.demo import drawing as dd


def plates_testdata() -> Path:
    """``../shared/testdata/plates``; skip naming what is missing (fail when CI is set)."""
    folder = TESTDATA / "plates"
    missing = [str(folder / sub) for sub in ("eu", "us") if not (folder / sub).is_dir()]
    if missing:
        message = (
            f"plate testdata missing: {', '.join(missing)} (the OpenALPR photos of "
            "../shared/testdata/plates, see its README)"
        )
        if os.environ.get("CI"):
            pytest.fail(message + "; CI is set, so the real-photo tests must run")
        pytest.skip(message)
    return folder


def need_text_models() -> None:
    """Skip unless both PP-OCR models (rapidocr's detection and recognition) are installed."""
    from core.imaging.plate_check import text_check_available

    if not text_check_available():
        pytest.skip("rapidocr (PP-OCR text detection + recognition models) is not installed")


def textured(width: int, height: int, seed: int = 0, base: int = 70) -> np.ndarray:
    """A dark, slightly noisy car-body-like background."""
    rng = np.random.default_rng(seed)
    rgb = np.full((height, width, 3), base, np.float32)
    rgb += np.linspace(-15, 15, height)[:, None, None]
    rgb += rng.normal(0, 4, rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def draw_plate(
    rgb: np.ndarray, box: tuple[int, int, int, int], number: str, top_line: str = "", frame: int = 0
) -> np.ndarray:
    """``rgb`` with a white plate drawn in ``box`` (x, y, w, h): an optional small line on
    top (a state or city name), the number in big dark characters, an optional dark
    frame ``frame`` px wide around it."""
    x, y, w, h = box
    image = Image.fromarray(rgb)
    d = ImageDraw.Draw(image)
    if frame:
        d.rectangle((x - frame, y - frame, x + w + frame, y + h + frame), fill=(25, 25, 28))
    d.rounded_rectangle(
        (x, y, x + w, y + h),
        radius=max(2, h // 12),
        fill=(236, 236, 228),
        outline=(40, 40, 40),
        width=max(2, h // 40),
    )
    if top_line:
        size = dd.fit_size(top_line, round(w * 0.6), round(h * 0.16))
        dd.centered_text(d, x + w / 2, y + h * 0.16, top_line, size, (30, 30, 30))
    size = dd.fit_size(number, round(w * 0.88), round(h * (0.55 if top_line else 0.7)))
    dd.centered_text(
        d,
        x + w / 2,
        y + h * (0.6 if top_line else 0.52),
        number,
        size,
        (20, 20, 20),
        stroke=(20, 20, 20),
        stroke_width=max(1, h // 60),
    )
    return np.asarray(image).copy()


def covered(specs, box: tuple[float, float, float, float], shape: tuple[int, ...]) -> float:
    """Share of ``box`` inside the union of regions (anything with x, y, w, h)."""
    mask = np.zeros(shape[:2], bool)
    for s in specs:
        mask[
            max(0, int(s.y)) : int(np.ceil(s.y + s.h)), max(0, int(s.x)) : int(np.ceil(s.x + s.w))
        ] = True
    x, y, w, h = (int(round(v)) for v in box)
    return float(mask[y : y + h, x : x + w].mean())


def assert_hidden_at_release(
    rgb: np.ndarray, data: bytes, result: Any, quad: np.ndarray, text: str
) -> None:
    """The plate of ``quad`` went out hidden by a region release added (ADR 114): not
    legible, its detail gone, the region and finding recorded, never the characters."""
    import json

    from core.imaging.loading import decode_rgb
    from core.imaging.plate_eval import detail_hidden, ocr_legible

    released = decode_rgb(data)
    assert not ocr_legible(released, quad, text)[0]
    assert detail_hidden(rgb, released, quad) >= 0.9
    added = {k: v for k, v in result.raised.items() if v.get("added")}
    assert added and all(k.startswith("found after release") for k in added)
    assert result.ok and all(f.get("hidden") for f in result.text_outside)
    record = json.dumps(result.to_json())
    assert text not in record and text[:4] not in record  # never the characters


def release_as_is(rgb: np.ndarray, detected: bool = False) -> tuple[bytes, Any]:
    """``rgb`` released with no region given (HOG faces): what the release's own search
    outside regions finds and hides (ADR 114); (encoded bytes, verification).
    ``detected``: released with the plate regions detection found instead, as the
    evaluation (and a photographer who accepts them) does."""
    from core.imaging.anonymize import HideSpec
    from core.imaging.detect import DetectSettings, detect_plates
    from core.imaging.geometry import Geometry
    from core.imaging.release import RenderJob, render_verified

    settings = DetectSettings(face_detector="hog")
    found = detect_plates(rgb, settings) if detected else []
    specs = [HideSpec(d.x, d.y, d.w, d.h) for d in found]
    labels = [f"#{i + 1} (plate)" for i in range(len(found))]
    return render_verified(RenderJob(rgb, specs, labels, Geometry()), settings)


def legible_after_release(rgb: np.ndarray, quad: np.ndarray, text: str, detected: bool = False) -> bool:
    """Whether the plate of ``quad`` can still be read in :func:`release_as_is`'s output."""
    from core.imaging.loading import decode_rgb
    from core.imaging.plate_eval import ocr_legible

    return ocr_legible(decode_rgb(release_as_is(rgb, detected)[0]), quad, text)[0]


def tune_variant(sub: str, name: str, kind: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The ``kind`` variant (ADR 110, or a stress variant) of the tune photo
    ``sub/name``: pixels, plate corners, plate text (skips without the testdata or the
    text models)."""
    from core.imaging.loading import load_rgb
    from core.imaging.plate_eval import STRESS, annotated, stress_variant, variant

    folder = plates_testdata()
    need_text_models()
    photos = annotated(folder / sub, "tune")
    n, truth = next((i, t) for i, t in enumerate(photos) if t.path.name == name)
    make = stress_variant if kind in STRESS else variant
    rgb, quad = make(load_rgb(truth.path), truth.quad, kind, seed=n)
    return rgb, quad, truth.text


def touching(found: list[Any], quad: np.ndarray) -> list[Any]:
    """The regions of ``found`` (anything with x, y, w, h) touching the plate ``quad``."""
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    return [d for d in found if d.x < x2 and d.x + d.w > x1 and d.y < y2 and d.y + d.h > y1]


def quad_box(quad: np.ndarray) -> tuple[float, float, float, float]:
    """The bounding box (x, y, w, h) of corners ``quad``."""
    (x1, y1), (x2, y2) = quad.min(axis=0), quad.max(axis=0)
    return (float(x1), float(y1), float(x2 - x1), float(y2 - y1))


def rect_line(x1: float, y1: float, x2: float, y2: float, score: float = 0.9) -> Any:
    """An upright text line (:class:`core.imaging.plate_frame.Line`) over a rectangle."""
    from core.imaging.plate_frame import Line

    return Line.from_quad(np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float), score)


class LineBox:
    """A text line's bounding box as x, y, w, h (what :func:`touching` looks at), and
    the line itself."""

    def __init__(self, line: Any) -> None:
        self.line = line
        self.x, self.y, self.w, self.h = quad_box(line.corners())


def facade_of_windows() -> np.ndarray:
    """A 1280 × 720 photo of 192 plate-shaped bright windows, an "8" in each: hundreds
    of candidates, to bound what the second source reads."""
    import cv2

    rgb = textured(1280, 720, seed=4)
    for row in range(12):
        for col in range(16):
            x, y = 20 + col * 78, 20 + row * 58
            cv2.rectangle(rgb, (x, y), (x + 60, y + 24), (235, 235, 235), -1)
            cv2.putText(rgb, "8", (x + 22, y + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 2)
    return rgb
