"""Demo photos for the Anonymize workspace: drawn, imported, detected, released."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.demo.photos import (
    DEMO_CREDIT,
    DEMO_LICENCE,
    PHOTOS_SUBDIR,
    add_demo_photos,
    draw_demo_photos,
    generate_demo_photos,
)
from core.imaging import photos as repo
from core.imaging.geometry import Geometry, apply_geometry, check_quad
from core.imaging.release import metadata_found, release_photo
from core.jobs import Cancelled, JobState

GPS_IFD, EXIF_IFD = 0x8825, 0x8769


def _need_text_model() -> None:
    from core.imaging.plates import text_model_path

    if text_model_path() is None:
        pytest.skip("rapidocr (the PP-OCR text model the plate detector uses) is not installed")


def _coverage(shape: tuple[int, ...], regions: list[repo.Region], box) -> float:
    """Fraction of ``box`` covered by the union of ``regions`` (what a release hides)."""
    mask = np.zeros(shape[:2], bool)
    for r in regions:
        mask[int(r.y):int(np.ceil(r.y + r.h)), int(r.x):int(np.ceil(r.x + r.w))] = True
    x, y, w, h = (int(round(v)) for v in box)
    return float(mask[y:y + h, x:x + w].mean())


def _on_drawn_text(region: repo.Region, boxes) -> bool:
    """The region is built on drawn text: its centre lies within the boxes it overlaps
    (one line, or the lines of one plate or badge, which the plate finder groups)."""
    from core.imaging.boxes import intersection

    hit = [b for b in boxes if intersection((region.x, region.y, region.w, region.h), b) > 0]
    if not hit:
        return False
    cx, cy = region.x + region.w / 2, region.y + region.h / 2
    return (min(b[0] for b in hit) <= cx <= max(b[0] + b[2] for b in hit)
            and min(b[1] for b in hit) <= cy <= max(b[1] + b[3] for b in hit))


@pytest.fixture
def demo(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    """An empty project with the demo photos added (seed 0), and the generator's truth."""
    _need_text_model()
    state = JobState(title="demo photos")
    count = add_demo_photos(project, tmp_path / "sources", state, seed=0)
    return project, count, {s.name: s for s in draw_demo_photos(0)}, tmp_path


def test_photos_are_imported_detected_and_left_for_review(demo) -> None:
    project, count, truth, tmp_path = demo
    photos = repo.list_photos(project)
    assert count == len(photos) == len(truth) >= 5
    assert {p.file_name for p in photos} == set(truth)
    assert all((tmp_path / "sources" / PHOTOS_SUBDIR / name).is_file() for name in truth)
    n_plate_photos = n_text_photos = 0
    for photo in photos:
        shot = truth[photo.file_name]
        assert photo.status == "new" and photo.detected_at is not None
        assert (photo.credit, photo.licence, photo.category) == (DEMO_CREDIT, DEMO_LICENCE,
                                                                   shot.category)
        assert photo.notes.startswith("Demo:")
        rgb = repo.load_original(project, photo)
        regs = repo.regions(project, photo.id)
        # found by the text detector, alone or merged with a read of the same plate or
        # badge ("pp-ocr-read+pp-ocr-text": ADR 181 reads on beside lines with no digit)
        found = [r for r in regs if r.kind == "plate" and "pp-ocr-text" in r.source.split("+")]
        for plate in shot.plates:  # every drawn plate is (almost) all hidden
            assert _coverage(rgb.shape, found, plate) >= 0.8, (photo.file_name, plate)
        for line in shot.texts:  # shop signs, name badges, labels are found as text
            assert _coverage(rgb.shape, found, line) >= 0.8, (photo.file_name, line)
        assert all(_on_drawn_text(r, shot.plates + shot.texts) for r in found), photo.file_name
        manual = [r for r in regs if r.source == "manual"]
        assert len(manual) == len(shot.faces)
        for face in shot.faces:
            assert any(r.kind == "face" and r.shape == "ellipse"
                       and _coverage(rgb.shape, [r], face) == 1.0 for r in manual)
        n_plate_photos += bool(shot.plates)
        n_text_photos += bool(shot.texts)
    assert n_plate_photos >= 2 and n_text_photos >= 2
    assert sum(bool(s.faces) for s in truth.values()) >= 1
    sizes = {p.file_name: (p.width, p.height) for p in photos}
    assert sizes["04-name-badge.jpg"] == (427, 640)  # stored 640×427, orientation 6
    audit = project.conn.execute("SELECT count(*) FROM audit_log WHERE action = 'detect'")
    assert audit.fetchone()[0] == count


def test_exif_is_in_the_originals_and_gone_after_release(demo, tmp_path: Path) -> None:
    project, _count, truth, _ = demo
    photos = {p.file_name: p for p in repo.list_photos(project)}
    orientations = set()
    for name, photo in photos.items():
        data = repo.original_path(project, photo).read_bytes()
        exif = Image.open(io.BytesIO(data)).getexif()
        assert exif[0x010F] == truth[name].camera[0] and exif[0x0110] == truth[name].camera[1]
        assert exif[0x013B] == "Alex Example"
        assert exif.get_ifd(EXIF_IFD)[0x9003] == truth[name].taken
        gps = exif.get_ifd(GPS_IFD)
        lat = gps[2][0] + gps[2][1] / 60 + gps[2][2] / 3600
        assert gps[1] in "NS" and lat == pytest.approx(abs(truth[name].gps[0]), abs=1e-3)
        orientations.add(exif[0x0112])
    assert orientations == {1, 6}
    street = photos["01-street-eu-plate.jpg"]
    repo.set_status(project, street.id, "reviewed")
    out, verification = release_photo(project, street.id, tmp_path / "released")
    released = out.read_bytes()
    assert metadata_found(released) == []
    assert not Image.open(io.BytesIO(released)).getexif()
    assert verification.ok
    assert repo.get_photo(project, street.id).status == "released"
    plate = truth[street.file_name].plates[0]  # the plate's pixels changed: it is hidden
    before = repo.load_original(project, street).astype(int)
    after = np.asarray(Image.open(io.BytesIO(released)).convert("RGB")).astype(int)
    x, y, w, h = (int(round(v)) for v in plate)
    inner = (slice(y + 4, y + h - 4), slice(x + 12, x + w - 4))
    assert np.abs(after[inner] - before[inner]).mean() > 10
    assert np.abs(after[:100, :100] - before[:100, :100]).mean() < 3  # the rest did not


def test_same_seed_same_bytes_other_seed_other_photos(tmp_path: Path) -> None:
    first = generate_demo_photos(tmp_path / "a", seed=3)
    again = generate_demo_photos(tmp_path / "b", seed=3)
    other = generate_demo_photos(tmp_path / "c", seed=4)
    assert [p.name for p in first] == [p.name for p in again] == [p.name for p in other]
    assert 5 <= len(first) <= 8
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, again, strict=True))
    assert all(a.read_bytes() != c.read_bytes() for a, c in zip(first, other, strict=True))


def _horizon_degrees(rgb: np.ndarray) -> float:
    """Slope of the kerb (dark road below, light pavement above) across the street photo."""
    h, w = rgb.shape[:2]
    xs, ys = (int(w * 0.05), int(w * 0.95)), []
    for x in xs:
        column = rgb[:, x].mean(axis=1)
        y = int(h * 0.85)
        while y > 0 and column[y] < 120:
            y -= 1
        ys.append(y)
    return float(np.degrees(np.arctan2(ys[1] - ys[0], xs[1] - xs[0])))


def test_geometry_demos_need_the_fixes_they_describe() -> None:
    shots = {s.name: s for s in draw_demo_photos(0)}
    gallery = shots["05-gallery-keystone.jpg"]
    assert gallery.quad is not None
    check_quad(gallery.quad)
    (tlx, _), (trx, _), (brx, _), (blx, _) = gallery.quad
    assert (trx - tlx) < 0.9 * (brx - blx)  # a trapezoid: the top edge looks shorter
    rgb = np.asarray(gallery.image)
    fixed = apply_geometry(rgb, Geometry(quad=gallery.quad))
    frame = np.array([150, 115, 50])  # the gilt frame runs along every edge once rectified
    for edge in (fixed[3, :], fixed[-4, :], fixed[:, 3], fixed[:, -4]):
        assert np.abs(edge.astype(int) - frame).sum(axis=1).mean() < 60
    street = shots["01-street-eu-plate.jpg"]
    assert "Straighten" in street.notes and f"{street.tilt:+.1f}°" in street.notes
    tilted = _horizon_degrees(np.asarray(street.image))
    assert 3.0 <= abs(tilted) <= 5.0 and tilted == pytest.approx(-street.tilt, abs=0.5)
    level = apply_geometry(np.asarray(street.image), Geometry(angle=street.tilt))
    assert abs(_horizon_degrees(level)) < 0.5
    badge = shots["04-name-badge.jpg"]
    assert badge.orientation == 6 and badge.image.height > badge.image.width


def test_cancel_stops_before_anything_is_imported(project, tmp_path: Path) -> None:
    state = JobState()
    state.cancel()
    with pytest.raises(Cancelled):
        add_demo_photos(project, tmp_path / "sources", state)
    assert repo.list_photos(project) == []
