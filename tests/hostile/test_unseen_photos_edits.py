"""Hostile edits of a photo: non-finite or absurd region, strength, feather and geometry
values (from a script, a damaged undo, or a project edited with sqlite3) are refused
with a message naming the field, before anything is saved or rendered — never a raw
IntegrityError, an OpenCV allocation of terabytes, or a 1×1 "photo" released from a
crop outside the picture; credit and licence keep any text exactly."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.release import ReleaseRefused, release_photo

NO_FACES = DetectSettings(face_detector="hog", plates=False)
NAN, INF = math.nan, math.inf


@pytest.fixture
def photo(project, tmp_path: Path) -> int:
    """A 300×200 photo with one region."""
    src = tmp_path / "x.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (200, 300, 3), np.uint8)
                    ).save(src)
    photo_id, _ = repo.import_photo(project, src)
    repo.add_region(project, photo_id, x=10, y=10, w=40, h=40)
    return photo_id


@pytest.mark.parametrize("values, word", [
    ({"x": NAN}, "x"), ({"y": INF}, "y"), ({"w": INF}, "w"), ({"h": NAN}, "h"),
    ({"w": -3}, "width"), ({"strength": NAN}, "strength"), ({"strength": -1.0}, "strength"),
    ({"strength": 1e9}, "strength"), ({"method": "bogus"}, "method"),
])
def test_bad_region_values_are_refused_naming_the_field(project, photo: int, values,
                                                         word: str) -> None:
    (region,) = repo.regions(project, photo)
    audit = project.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    fields = {"x": 5.0, "y": 5.0, "w": 20.0, "h": 20.0, **values}
    with pytest.raises(ValueError, match=word) as add:
        repo.add_region(project, photo, **fields)
    assert not isinstance(add.value, sqlite3.Error)
    with pytest.raises(ValueError, match=word):
        repo.update_region(project, region.id, **values)
    assert repo.regions(project, photo) == [region]
    assert project.conn.execute("SELECT count(*) FROM audit_log").fetchone()[0] == audit


@pytest.mark.parametrize("changes, word", [
    ({"strength": NAN}, "strength"), ({"strength": -1.0}, "strength"),
    ({"strength": 1e9}, "strength"), ({"feather": NAN}, "feather"),
    ({"feather": INF}, "feather"), ({"feather": 1e9}, "feather"),
    ({"geometry": {"angle": NAN}}, "angle"), ({"geometry": {"angle": INF}}, "angle"),
    ({"geometry": {"angle": 1e300}}, "angle"),
    ({"geometry": {"crop": [NAN, 0, 10, 10]}}, "crop"),
    ({"geometry": {"crop": [0, 0, 0, 0]}}, "crop"),
    ({"geometry": {"crop": [0, 0, -5, 10]}}, "crop"),
    ({"geometry": {"crop": [500, 500, 10, 10]}}, "crop"),
    ({"geometry": {"quad": [[0, 0], [1e7, 0], [1e7, 1e7], [0, 1e7]]}}, "corner"),
    ({"geometry": {"quad": [[0, 0], [NAN, 0], [300, 200], [0, 200]]}}, "corner"),
])
def test_bad_photo_values_are_refused_naming_the_field(project, photo: int, changes,
                                                        word: str) -> None:
    before = repo.get_photo(project, photo)
    with pytest.raises(ValueError, match=word) as refused:
        repo.update_photo(project, photo, **changes)
    assert not isinstance(refused.value, sqlite3.Error)
    assert repo.get_photo(project, photo) == before


def test_geometry_a_person_can_make_is_still_accepted(project, photo: int) -> None:
    """Corners dragged a little past the edge, the whole range of the angle box, a crop
    reaching past the picture (clamped), quarter turns."""
    for geometry in ({"quad": [[-20, -10], [310, 0], [320, 215], [0, 200]]},
                     {"angle": -45.0}, {"angle": 45.0, "rot90": 3},
                     {"crop": [250, 150, 400, 400]}, {"rot90": 1, "crop": [0, 0, 200, 300]}):
        repo.update_photo(project, photo, geometry=geometry)
    repo.update_photo(project, photo, strength=64.0, feather=200.0)
    repo.update_photo(project, photo, strength=None)


@pytest.mark.parametrize("sql, word", [
    ("UPDATE photo_regions SET w = 9e999", "region"),
    ("UPDATE photos SET geometry = '{\"angle\": NaN}'", "angle"),
    ("UPDATE photos SET geometry = '{\"crop\": [900, 900, 5, 5]}'", "crop"),
    ("UPDATE photos SET geometry = '{\"quad\": [[0,0],[1e7,0],[1e7,1e7],[0,1e7]]}'", "corner"),
    ("UPDATE photos SET strength = 1e9", "strength"),
])
def test_a_project_edited_with_sqlite3_is_refused_at_release_naming_the_photo(
        project, photo: int, tmp_path: Path, sql: str, word: str) -> None:
    repo.set_status(project, photo, "reviewed")
    conn = sqlite3.connect(project.path)
    with conn:
        conn.execute(sql)
    conn.close()
    with pytest.raises(ReleaseRefused, match=f"^x.png: .*{word}"):
        release_photo(project, photo, tmp_path / "out", NO_FACES)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    assert repo.get_photo(project, photo).status == "reviewed"


CREDITS = ("Zoë Ångström 山田太郎 🙂 مريم", "Line one\nLine two\r\nthree",
           "<b>bold</b><script>alert(1)</script><img src=x onerror=alert(1)>", "x" * 10_000,
           "=HYPERLINK(\"http://evil\")", "\u202eRTL override", "tab\there\x00nul")


def test_credit_and_licence_keep_any_text_exactly(project, photo: int,
                                                   tmp_path: Path) -> None:
    for text in CREDITS:
        repo.update_photo(project, photo, credit=text, licence=text[:200], caption=text)
        got = repo.get_photo(project, photo)
        assert (got.credit, got.licence, got.caption) == (text, text[:200], text)
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from core.interop.hf_export import export_photos_hf

    repo.update_photo(project, photo, credit=CREDITS[2], licence="CC-BY-4.0")
    repo.set_status(project, photo, "reviewed")
    release_photo(project, photo, tmp_path / "out", NO_FACES)
    export_photos_hf(project, tmp_path / "hf")
    (shard,) = (tmp_path / "hf").rglob("*.parquet")
    rows = pq.read_table(shard).to_pylist()
    assert rows[0]["credit"] == CREDITS[2] and rows[0]["license"] == "CC-BY-4.0"
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert "<script>" not in card and 'license: "cc-by-4.0"' in card
    assert json.loads(json.dumps(rows[0]["caption"])) == CREDITS[-1]
