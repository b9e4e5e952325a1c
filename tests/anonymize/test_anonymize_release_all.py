"""Bulk release (core): reviewed only, clean files, no silent overwrite, failures by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from anon_helpers import quadrant_image
from PIL import Image

from core.imaging import photos as repo
from core.imaging.detect import DetectSettings
from core.imaging.loading import load_rgb
from core.imaging.release import metadata_found, write_release
from core.imaging.release_all import BulkRelease, release_all
from core.jobs import Cancelled, JobState

NO_FACES = DetectSettings(face_detector="hog")


def make_photos(folder: Path, names: list[str]) -> list[Path]:
    """Distinct small PNGs (each differs, so none is a duplicate of another)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, name in enumerate(names):
        rgb = quadrant_image(160 + 8 * i, 100)
        path = folder / name
        Image.fromarray(rgb).save(path)
        out.append(path)
    return out


def import_reviewed(project, paths: list[Path], reviewed: set[str]) -> dict[str, int]:
    """Import, add one region each, mark the named ones reviewed; name -> photo id."""
    ids = {}
    for path in paths:
        photo_id, _ = repo.import_photo(project, path)
        repo.add_region(project, photo_id, kind="face", x=10, y=10, w=30, h=30)
        if path.name in reviewed:
            repo.set_status(project, photo_id, "reviewed")
        ids[path.name] = photo_id
    return ids


def released(ids: dict[str, int], name: str) -> str:
    """The released file's name of the photo imported as ``name`` (ADR 164)."""
    return f"photo-{ids[name]:05d}.png"


def test_releases_reviewed_only_and_names_the_skipped(project, tmp_path: Path) -> None:
    paths = make_photos(tmp_path / "in", ["a.png", "b.png", "c.png"])
    ids = import_reviewed(project, paths, {"a.png", "c.png"})
    out = tmp_path / "out"
    state = JobState("release")
    report = release_all(project, out, NO_FACES, state)
    assert sorted(p.name for p in out.iterdir()) == [released(ids, "a.png"),
                                                    released(ids, "c.png")]
    for name in ("a.png", "c.png"):
        data = (out / released(ids, name)).read_bytes()
        assert metadata_found(data) == []
        released_rgb = load_rgb(out / released(ids, name))
        original = load_rgb(tmp_path / "in" / name)
        assert released_rgb.shape == original.shape
        assert not np.array_equal(released_rgb[10:40, 10:40], original[10:40, 10:40])
        assert np.array_equal(released_rgb[60:, 100:], original[60:, 100:])  # untouched
        assert repo.get_photo(project, ids[name]).status == "released"
    assert repo.get_photo(project, ids["b.png"]).status == "new"
    assert report.skipped == ["b.png"] and report.failed == [] and not report.cancelled
    assert (state.total, state.done) == (2, 2)
    text = report.summary()
    assert text.startswith("Released 2 photos into")
    assert "Skipped 1 not marked reviewed" in text and "b.png" in text
    audit = project.conn.execute("SELECT count(*) FROM audit_log WHERE action = 'release'"
                                 ).fetchone()[0]
    assert audit == 2


def test_existing_files_are_never_overwritten(project, tmp_path: Path) -> None:
    paths = make_photos(tmp_path / "in", ["a.png", "b.png"])
    ids = import_reviewed(project, paths, {"a.png", "b.png"})
    out = tmp_path / "out"
    out.mkdir()
    (out / released(ids, "a.png")).write_bytes(b"someone else's file")
    (out / f"b-{ids['b.png']}.png").write_bytes(b"another")
    report = release_all(project, out, NO_FACES)
    assert (out / released(ids, "a.png")).read_bytes() == b"someone else's file"
    assert (out / f"b-{ids['b.png']}.png").read_bytes() == b"another"
    written = out / f"photo-{ids['a.png']:05d}-2.png"
    assert metadata_found(written.read_bytes()) == []
    assert repo.get_photo(project, ids["a.png"]).released_path == str(written)
    assert report.renamed == [("a.png", written.name)]
    assert "Written under another name" in report.summary() and written.name in \
        report.summary()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files left
    # a second run leaves released photos alone (not re-rendered, nothing new written)
    before = sorted(out.iterdir())
    again = release_all(project, out, NO_FACES)
    assert again.released == [] and sorted(again.already) == ["a.png", "b.png"]
    assert sorted(out.iterdir()) == before


def test_a_release_never_replaces_a_file_it_did_not_write(tmp_path: Path) -> None:
    from types import SimpleNamespace

    (tmp_path / "x.jpg").write_bytes(b"someone else's")
    (tmp_path / "photo-00007.jpg").write_bytes(b"someone else's too")
    photo = SimpleNamespace(file_name="x.heic", id=7, released_path=str(tmp_path / "x.jpg"))
    # even the photo's recorded release path is kept when its bytes are not the release's
    target = write_release(tmp_path, photo, "jpg", b"one", own_sha256="0" * 64)
    assert target.name == "photo-00007-2.jpg" and target.read_bytes() == b"one"
    assert (tmp_path / "x.jpg").read_bytes() == b"someone else's"
    assert (tmp_path / "photo-00007.jpg").read_bytes() == b"someone else's too"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photo-00007-2.jpg",
                                                         "photo-00007.jpg", "x.jpg"]


def test_a_failing_photo_is_named_and_the_rest_go_on(project, tmp_path: Path) -> None:
    paths = make_photos(tmp_path / "in", ["a.png", "gone.png", "c.png"])
    ids = import_reviewed(project, paths, {"a.png", "gone.png", "c.png"})
    stored = repo.original_path(project, repo.get_photo(project, ids["gone.png"]))
    stored.unlink()  # the original vanished from the asset store
    out = tmp_path / "out"
    report = release_all(project, out, NO_FACES)
    assert sorted(p.name for p in out.iterdir()) == [released(ids, "a.png"),
                                                    released(ids, "c.png")]
    ((name, reason),) = report.failed
    assert name == "gone.png" and "missing" in reason
    assert repo.get_photo(project, ids["gone.png"]).status == "reviewed"
    assert "Failed 1" in report.summary() and "gone.png: " in report.summary()


def test_cancel_between_photos_keeps_the_partial_report(project, tmp_path: Path) -> None:
    paths = make_photos(tmp_path / "in", ["a.png", "b.png", "c.png"])
    ids = import_reviewed(project, paths, {"a.png", "b.png", "c.png"})
    state = JobState("release")
    state.subscribe(lambda s: s.cancel() if s.done == 1 and not s.cancelled() else None)
    report = BulkRelease(str(tmp_path / "out"))
    with pytest.raises(Cancelled):
        release_all(project, tmp_path / "out", NO_FACES, state, report)
    assert report.cancelled and [p for p, _ in report.released] == ["a.png"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == [released(ids, "a.png")]
    assert report.summary().startswith("Cancelled: released 1 of 3")
    statuses = [p.status for p in repo.list_photos(project)]
    assert statuses == ["released", "reviewed", "reviewed"]
