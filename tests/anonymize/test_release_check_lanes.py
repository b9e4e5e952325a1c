"""The release check's face half and text half run at once (ADR 220): both start before
either has finished, and the verification is the one the halves give one after the other."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from core.imaging import lanes, release
from core.imaging.detect import DetectSettings


def test_the_face_and_text_halves_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each half waits for the other to have started: one after the other, the first
    would wait alone and the barrier break."""
    monkeypatch.setattr(lanes, "usable_cores", lambda: 2)
    both = threading.Barrier(2, timeout=10)
    threads: dict[str, int] = {}

    def find(_rgb: np.ndarray) -> list[Any]:
        threads["faces"] = threading.get_ident()
        both.wait()
        return []

    def text(_rgb: np.ndarray, _hidden: Any, _settings: Any, _anywhere: bool,
             result: release.Verification) -> None:
        threads["text"] = threading.get_ident()
        both.wait()
        result.text_checked = True

    monkeypatch.setattr(release, "face_finder", lambda _settings: ("centerface", find))
    monkeypatch.setattr(release, "_verify_text", text)
    result = release.verify(np.zeros((64, 64, 3), np.uint8), [], DetectSettings())
    assert result.text_checked and result.detector == "centerface"
    assert threads["faces"] != threads["text"]


def test_one_core_checks_one_half_after_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lanes, "usable_cores", lambda: 1)
    order: list[str] = []
    monkeypatch.setattr(release, "face_finder",
                        lambda _settings: ("centerface", lambda _rgb: order.append("faces") or []))
    monkeypatch.setattr(release, "_verify_text", lambda *_args: order.append("text"))
    release.verify(np.zeros((64, 64, 3), np.uint8), [], DetectSettings())
    assert sorted(order) == ["faces", "text"] and release.check_lanes() == 1


def test_a_real_check_at_once_finds_what_it_finds_one_half_after_the_other(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plate photo (tune split) with its plate left visible and a face-sized region
    hidden: the faces, the plate text outside and inside every region are the same."""
    from shared_data import need_testdata

    from core.imaging.loading import load_rgb
    from core.imaging.plate_check import text_check_available

    if not text_check_available():
        pytest.skip("needs rapidocr's PP-OCR models")
    rgb = load_rgb(need_testdata("plates") / "us" / "car14.jpg")
    hidden = [("#1 (plate)", (20.0, 20.0, 60.0, 30.0), False),
              ("#2 (face)", (300.0, 100.0, 80.0, 90.0), False)]
    runs = []
    for cores in (2, 1):
        monkeypatch.setattr(lanes, "usable_cores", lambda cores=cores: cores)
        runs.append(release.verify(rgb, hidden, DetectSettings()).to_json())
    assert runs[0] == runs[1]
    assert runs[0]["text_outside"], "the plate left visible is read outside every region"
