"""Migration 14 (ADR 189): ``photo_regions.edited`` says a detector's region is the
user's; a project written before it says so from its audit log and reviews."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from core.imaging import photos as repo
from core.imaging.boxes import Detection
from core.store import SCHEMA_VERSION, Project
from core.store.project import APPLICATION_ID
from core.store.schema import MIGRATIONS

#: (photo status, region source, whether the audit log holds a field edit of it)
REGIONS = [("new", "centerface", False), ("new", "pp-ocr-text", True),
           ("new", "manual", False), ("reviewed", "centerface", False)]


def _old_project(path: Path, version: int) -> None:
    """A project at schema ``version`` (5 ≤ version < 14) with one region per
    :data:`REGIONS` row, each on a photo of its own."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    for migration in MIGRATIONS[:version]:
        conn.execute("BEGIN")
        migration(conn)
        conn.execute("COMMIT")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("BEGIN")
    for k, (status, source, edited) in enumerate(REGIONS, start=1):
        sha = f"{k:064x}"
        conn.execute("INSERT INTO images(sha256, ext, created_at) VALUES (?, 'png', 'now')",
                     (sha,))
        conn.execute("INSERT INTO photos(id, sha256, file_name, width, height, status, "
                     "imported_at, modified_at) VALUES (?, ?, ?, 640, 427, ?, 'now', 'now')",
                     (k, sha, f"p{k}.png", status))
        conn.execute("INSERT INTO photo_regions(id, photo_id, kind, x, y, w, h, source, "
                     "created_at, modified_at) VALUES (?, ?, 'face', 10, 10, 40, 40, ?, "
                     "'now', 'now')", (k, k, source))
        if edited:
            conn.execute("INSERT INTO audit_log(at, actor, action, entity, entity_id, field, "
                         "old, new) VALUES ('now', 'me', 'edit', 'photo_region', ?, 'w', "
                         "'40', '80')", (str(k),))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _digest(folder: Path) -> dict[str, str]:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in folder.iterdir()}


@pytest.mark.parametrize("version", range(5, 14))
def test_an_older_project_says_which_detector_regions_are_the_users(
        tmp_path: Path, version: int) -> None:
    path = tmp_path / f"v{version}.winnow"
    _old_project(path, version)
    with Project.open(path) as p:
        assert p.schema_version == SCHEMA_VERSION >= 14
        edited = {r.id: r.edited for k in range(1, 5) for r in repo.regions(p, k)}
        # an edit in the audit log, or a reviewed photo: the user's; manual ones are anyway
        assert edited == {1: False, 2: True, 3: False, 4: True}
        assert p.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        change = repo.replace_detections(p, 2, [Detection("face", 300, 300, 30, 30, 0.9,
                                                          "centerface")])
        assert change.removed == [] and 2 in {r.id for r in repo.regions(p, 2)}


def test_an_older_project_opened_read_only_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "v13.winnow"
    _old_project(path, 13)
    files = _digest(tmp_path)
    with Project.open(path, readonly=True) as p:
        assert p.schema_version == 13
        (region,) = repo.regions(p, 2)
        assert region.source == "pp-ocr-text" and not region.edited
        assert repo.get_region(p, 4).id == 4
    assert _digest(tmp_path) == files  # nothing written


def test_the_column_refuses_anything_but_0_and_1(project: Project) -> None:
    with pytest.raises(sqlite3.IntegrityError), project.transaction() as conn:
        conn.execute("INSERT INTO images(sha256, ext, created_at) VALUES ('ab', 'png', 'n')")
        conn.execute("INSERT INTO photos(sha256, file_name, width, height, imported_at, "
                     "modified_at) VALUES ('ab', 'a.png', 1, 1, 'n', 'n')")
        conn.execute("INSERT INTO photo_regions(photo_id, x, y, w, h, edited, created_at, "
                     "modified_at) VALUES (last_insert_rowid(), 0, 0, 1, 1, 2, 'n', 'n')")
