"""Text rendering: target extraction, CER by hand, and real OCR on rendered text."""

from __future__ import annotations

from pathlib import Path

import pytest
from metrics_helpers import pair, save
from PIL import Image, ImageDraw, ImageFont

from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import MetricSettings
from core.metrics.text_rendering import cer, levenshtein, reading_order, target_text

pytest.importorskip("rapidocr")


@pytest.mark.parametrize(("prompt", "target"), [
    ("A neon sign that says 'KARAOKE' in a rainy alley", "KARAOKE"),
    ('a poster reading "Grand Opening" and "50% off"', "Grand Opening 50% off"),
    ("a mug with “Don’t panic” on it", "Don’t panic"),
    ("don't make the cat's tail blue", ""),
    ("rebrand this can as 'LIME WAVE'", "LIME WAVE"),
    ("a receipt with a total of $48.31", ""),
])
def test_target_text(prompt: str, target: str) -> None:
    assert target_text(prompt) == target


def test_levenshtein_and_cer_by_hand() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("abc", "abc") == 0
    assert cer("HELLO  World", "hello world") == (0.0, 0)
    assert cer("helo world", "hello world") == (pytest.approx(1 / 11), 1)


def test_reading_order_top_to_bottom_then_left_to_right() -> None:
    box = lambda x, y: [[x, y], [x + 50, y], [x + 50, y + 20], [x, y + 20]]  # noqa: E731
    lines = [("world", box(120, 12)), ("second", box(10, 60)), ("hello", box(10, 10))]
    assert reading_order(lines) == "hello world second"


def _render(text: str, path: Path) -> Path:
    im = Image.new("RGB", (560, 140), "white")
    font = ImageFont.truetype("DejaVuSans-Bold.ttf", 56) if _has_font() else \
        ImageFont.load_default(size=56)
    ImageDraw.Draw(im).text((24, 36), text, fill=(20, 20, 20), font=font)
    return save(im, path)


def _has_font() -> bool:
    try:
        ImageFont.truetype("DejaVuSans-Bold.ttf", 10)
        return True
    except OSError:
        return False


def test_ocr_on_rendered_text(tmp_path: Path, worker) -> None:
    good = _render("GRAND OPENING", tmp_path / "good.png")
    typo = _render("GRAND OPNEING", tmp_path / "typo.png")
    blank = save(Image.new("RGB", (300, 120), "white"), tmp_path / "blank.png")
    prompt = 'a shop window with a banner that says "Grand Opening"'
    metric = get("text_ocr_cer")
    ok, wrong, empty, forced, none = evaluate(metric, [
        pair(good, good, prompt), pair(good, typo, prompt), pair(good, blank, prompt),
        pair(good, good, "a banner", text="GRAND OPENING SALE"),
        pair(good, good, "a plain banner")], MetricSettings(), worker=worker)
    assert ok.status == "ok" and ok.value == 0.0, ok.details
    assert ok.details["target"] == "Grand Opening"
    assert 0 < wrong.value <= 3 / 13 + 1e-9  # a swapped pair of letters: at most 2–3 edits
    assert empty.value == 1.0 and empty.details["ocr"] == ""
    assert forced.value == pytest.approx(5 / 18)  # " sale" is missing
    assert none.status == "not_applicable"


def test_an_image_without_text_is_read_quietly(capfd) -> None:  # type: ignore[no-untyped-def]
    """Every output without text printed RapidOCR's 'The text detection result is empty'
    warning (escape codes spelt out) on `winnow metrics run`'s stderr."""
    import numpy as np

    from core.metrics.text_rendering import OcrEngine

    engine = OcrEngine()
    capfd.readouterr()
    assert engine.read(np.full((120, 300, 3), 255, np.uint8)) == []
    captured = capfd.readouterr()
    assert "detection result is empty" not in captured.err + captured.out
