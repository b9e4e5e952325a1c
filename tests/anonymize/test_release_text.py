"""The Anonymize panel's line about a release says what verification did: regions made
stronger, plates hidden although no region covered them (ADR 114), and plate-shaped text
left as it is in a photo of category Text."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from core.imaging.photos import Photo  # noqa: E402
from ui.anonymize.panel import _release_text  # noqa: E402


def _released(verification: dict) -> Photo:
    return Photo(1, "0" * 64, "car.jpg", 640, 480, released_path="/out/car.jpg",
                 released_at="2026-11-24T10:00:00+00:00", verification=verification)


def test_release_text_names_raised_regions_and_plates_hidden_at_release() -> None:
    text = _release_text(_released({
        "ok": True,
        "raised": {"#3 (plate)": {"strength": 2.0},
                   "found after release 1 (plate)": {"added": True, "method": "blur"}},
        "text_outside": [{"box": [1, 2, 3, 4], "hidden": True}],
    }))
    assert "strength raised for #3 (plate)" in text
    assert "found after release" not in text
    assert "1 readable plate(s) no region covered hidden at release" in text
    assert "left as they are" not in text


def test_release_text_says_when_plate_shaped_text_was_left() -> None:
    text = _release_text(_released({"ok": True, "raised": {},
                                     "text_outside": [{"box": [1, 2, 3, 4]}]}))
    assert "1 readable plate-shaped text line(s) left as they are (category Text)" in text
    assert "strength raised" not in text
