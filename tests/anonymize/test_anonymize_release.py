"""Release: no metadata in the bytes, upright pixels, regions hidden, status rules, audit."""

from __future__ import annotations

import io
import json
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest
from anon_helpers import quadrant_image
from PIL import Image, PngImagePlugin

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.loading import PhotoDecodeError, decode_rgb, load_rgb
from core.imaging.release import ReleaseRefused, metadata_found, release_photo

NO_FACES = DetectSettings(face_detector="hog")  # synthetic images: verification stays fast


def _reviewed(project, path: Path, boxes=((40, 30, 50, 40),), **photo_fields) -> int:
    photo_id, new = repo.import_photo(project, path)
    assert new
    for x, y, w, h in boxes:
        repo.add_region(project, photo_id, kind="face", x=x, y=y, w=w, h=h)
    if photo_fields:
        repo.update_photo(project, photo_id, **photo_fields)
    repo.set_status(project, photo_id, "reviewed")
    return photo_id


def test_input_really_carries_the_metadata(rich_jpeg) -> None:
    path, upright = rich_jpeg
    data = path.read_bytes()
    found = metadata_found(data)
    for kind in ("EXIF", "XMP", "ICC profile", "IPTC/Photoshop", "JPEG comment"):
        assert kind in found
    with Image.open(path) as image:
        exif = image.getexif()
        assert exif[0x0112] == 6
        assert exif.get_ifd(0x8825)[1] == "N"  # GPS latitude ref
    assert data.count(b"\xff\xd8\xff") == 2  # the main image and the EXIF thumbnail
    assert load_rgb(path).shape == upright.shape  # orientation applied on load


def test_release_has_no_metadata_and_is_upright(project, rich_jpeg, tmp_path: Path) -> None:
    path, upright = rich_jpeg
    original_bytes = path.read_bytes()
    photo_id = _reviewed(project, path)
    out, verification = release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    data = out.read_bytes()
    assert metadata_found(data) == []
    for needle in (b"Exif", b"GPS", b"http://ns.adobe.com", b"Jane Secret", b"Janet",
                   b"Photoshop", b"ICC_PROFILE", b"\xff\xfe"):
        assert needle not in data, needle
    assert data.count(b"\xff\xd8") == 1  # no embedded thumbnail
    with Image.open(io.BytesIO(data)) as image:
        assert image.getexif() == {} or len(image.getexif()) == 0
        assert "icc_profile" not in image.info and "comment" not in image.info
    released = decode_rgb(data)
    assert released.shape == upright.shape  # 160 x 240, not the stored 240 x 160
    # upright: top-left quadrant red, bottom-right white (away from the hidden region)
    assert released[5:30, 5:30].mean(axis=(0, 1)) == pytest.approx((220, 30, 30), abs=15)
    assert released[130:155, 200:235].mean(axis=(0, 1)) == pytest.approx((240, 240, 240),
                                                                          abs=12)
    assert path.read_bytes() == original_bytes  # the original is untouched
    stored = repo.original_path(project, repo.get_photo(project, photo_id))
    assert stored.read_bytes() == original_bytes and not (stored.stat().st_mode & 0o222)
    photo = repo.get_photo(project, photo_id)
    assert photo.status == "released" and photo.released_path == str(out)
    # the strongest installed checker, whatever detector found the regions (ADR 185)
    from core.imaging.faces import centerface_available

    assert verification.detector == ("centerface" if centerface_available() else "hog")


def test_png_pixels_hidden_inside_unchanged_outside_and_chunks_dropped(project,
                                                                        tmp_path: Path) -> None:
    rgb = quadrant_image(200, 120)
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Jane Secret")
    info.add_itxt("Description", "home address")
    path = tmp_path / "p.png"
    exif = Image.Exif()
    exif[0x010E] = "Jane Secret's garden"
    Image.fromarray(rgb).save(path, pnginfo=info, exif=exif)
    assert {"PNG tEXt chunk", "PNG iTXt chunk", "PNG eXIf chunk"} <= set(
        metadata_found(path.read_bytes()))
    region = (60, 20, 50, 40)
    photo_id = _reviewed(project, path, (region,), method="pixelate")
    out, _ = release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    data = out.read_bytes()
    assert out.suffix == ".png" and metadata_found(data) == []
    assert b"Jane Secret" not in data and b"home address" not in data
    released = decode_rgb(data)
    x, y, w, h = region
    inside = np.zeros(rgb.shape[:2], bool)
    inside[y:y + h, x:x + w] = True
    assert np.array_equal(released[~inside], rgb[~inside])  # outside: bit-identical
    diff = np.abs(released[inside].astype(int) - rgb[inside].astype(int)).sum(axis=1)
    assert (diff > 0).mean() > 0.9  # inside: (almost) every pixel changed
    # pixelation: 8 blocks across the longer side -> few distinct colours
    assert len(np.unique(released[y:y + h, x:x + w].reshape(-1, 3), axis=0)) <= 8 * 8


def test_png_chunk_scan_is_by_bytes() -> None:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (len(payload).to_bytes(4, "big") + kind + payload
                + zlib.crc32(kind + payload).to_bytes(4, "big"))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", b"\0" * 13) + chunk(b"eXIf", b"x") + \
        chunk(b"iCCP", b"x") + chunk(b"IEND", b"")
    assert metadata_found(png) == ["PNG eXIf chunk", "PNG iCCP chunk"]


def test_only_reviewed_photos_can_be_released(project, rich_jpeg, tmp_path: Path) -> None:
    path, _ = rich_jpeg
    photo_id, _ = repo.import_photo(project, path)
    with pytest.raises(ReleaseRefused, match="only a reviewed photo"):
        release_photo(project, photo_id, tmp_path / "out", NO_FACES)
    assert not (tmp_path / "out").exists()
    with pytest.raises(sqlite3.IntegrityError, match="only a reviewed photo"), \
            project.transaction() as conn:
        conn.execute("UPDATE photos SET status = 'released' WHERE id = ?", (photo_id,))
    with pytest.raises(ValueError):
        repo.set_status(project, photo_id, "released")
    repo.set_status(project, photo_id, "reviewed")
    region = repo.add_region(project, photo_id, x=1, y=1, w=5, h=5)
    assert repo.get_photo(project, photo_id).status == "new"  # an edit needs a new review
    audit = project.conn.execute(
        "SELECT action, entity, field, old, new FROM audit_log WHERE entity_id IN (?, ?) "
        "ORDER BY id", (str(photo_id), str(region))).fetchall()
    assert ("edit", "photo", "status", '"new"', '"reviewed"') in audit
    assert ("edit", "photo", "status", '"reviewed"', '"new"') in audit
    assert any(row[:2] == ("edit", "photo_region") for row in audit)


def test_edits_are_audited_and_validated(project, rich_jpeg) -> None:
    path, _ = rich_jpeg
    photo_id, _ = repo.import_photo(project, path)
    photo = repo.get_photo(project, photo_id)
    assert photo.licence == "CC-BY-4.0" and photo.status == "new"
    repo.update_photo(project, photo_id, category="Art", credit="A. Photographer")
    with pytest.raises(ValueError, match="unknown category"):
        repo.update_photo(project, photo_id, category="Selfie")
    with pytest.raises(ValueError, match="convex"):
        repo.update_photo(project, photo_id, geometry={"quad": [[0, 0], [10, 10], [10, 0],
                                                                [0, 10]]})
    rid = repo.add_region(project, photo_id, kind="plate", shape="ellipse", x=5, y=5, w=9, h=4)
    repo.update_region(project, rid, x=7.5)
    rows = project.conn.execute("SELECT field, old, new FROM audit_log WHERE action='edit' "
                                "ORDER BY id").fetchall()
    assert ("category", None, '"Art"') in rows and ("x", "5.0", "7.5") in rows
    assert repo.get_photo(project, photo_id).category == "Art"
    repo.update_photo(project, photo_id, geometry={"rot90": 1})
    old_geom, new_geom = project.conn.execute(
        "SELECT old, new FROM audit_log WHERE field = 'geometry'").fetchone()
    # geometry is audited as JSON objects, not as JSON text wrapped in a string
    assert isinstance(json.loads(old_geom), dict)
    assert json.loads(old_geom).get("rot90", 0) == 0 and json.loads(new_geom)["rot90"] == 1


def test_broken_photo_gets_a_clear_error_and_does_not_stop_intake(project,
                                                                  tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    (folder / "notes.txt").write_text("ignored")
    Image.fromarray(quadrant_image()).save(folder / "good.png")
    with pytest.raises(PhotoDecodeError, match="broken.jpg"):
        load_rgb(folder / "broken.jpg")
    report = repo.import_folder(project, folder)
    assert len(report.imported) == 1
    assert report.errors[0][0] == "broken.jpg" and "broken.jpg" in report.errors[0][1]
    again = repo.import_folder(project, folder)
    assert again.imported == [] and again.duplicates == ["good.png"]
