"""A region whose box was set to text or bytes with sqlite3 (ADR 211): Detect refuses
that photo naming it and the region, changing nothing (the row stays, also a
detector's own region, which a detection would otherwise replace); the release is
refused naming the region and why."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.boxes import Detection
from core.imaging.detect import DetectSettings
from core.imaging.release import ReleaseRefused, release_photo

FACE = Detection("face", 40, 20, 30, 30, 0.9, "centerface")


@pytest.fixture
def photo(project, tmp_path: Path) -> int:  # type: ignore[no-untyped-def]
    Image.fromarray(np.full((120, 160, 3), 90, np.uint8)).save(tmp_path / "x.png")
    return repo.import_photo(project, tmp_path / "x.png")[0]


@pytest.mark.parametrize("source", ["manual", "centerface"])
@pytest.mark.parametrize("value", ["left of the door", b"\x00\x01"])
def test_detect_refuses_the_photo_and_keeps_the_row(project, photo: int, source: str,
                                                    value: object) -> None:
    region = repo.add_region(project, photo, kind="face", x=5, y=5, w=20, h=20,
                             source=source)
    conn = sqlite3.connect(project.path)
    with conn:
        conn.execute("UPDATE photo_regions SET y = ? WHERE id = ?", (value, region))
    conn.close()
    with pytest.raises(repo.UnreadableRegion, match=rf"^x.png: region #{region}'s box .*"
                       r"its y is .*not a number"):
        repo.replace_detections(project, photo, [FACE])
    assert [(r.id, r.y) for r in repo.regions(project, photo)] == [(region, value)]
    assert repo.get_photo(project, photo).detected_at is None


def test_the_release_names_the_region_and_why(project, photo: int, tmp_path: Path) -> None:
    region = repo.add_region(project, photo, kind="face", x=5, y=5, w=20, h=20)
    repo.set_status(project, photo, "reviewed")
    conn = sqlite3.connect(project.path)
    with conn:
        conn.execute("UPDATE photo_regions SET w = 'wide' WHERE id = ?", (region,))
    conn.close()
    with pytest.raises(ReleaseRefused, match=rf"x.png: .*region #{region}: its w is 'wide', "
                       "not a number"):
        release_photo(project, photo, tmp_path / "out",
                      DetectSettings(face_detector="hog", plates=False))
