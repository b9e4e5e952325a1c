"""A project's asset folder edited by hand, or received with the project: a stored image
replaced by a link to a photo elsewhere on the disk. A rating session showed that photo
to the raters and a curator package carried it, under the stored image's hash; now the
session is refused naming the image, and the package leaves it out, as it leaves out a
missing one (ADR 176)."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest
from PIL import Image

from core.store import Project

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "teamwork"))
from rating_helpers import build_project, make_session  # noqa: E402  (tests/rating)
from team_helpers import make_project, package_path, split  # noqa: E402


def _link_elsewhere(project: Project, sha: str, tmp_path: Path) -> bytes:
    """Replace the stored file of ``sha`` by a link to a private photo; its bytes."""
    private = tmp_path / "private.png"
    Image.new("RGB", (64, 48), (9, 9, 9)).save(private)
    path = project.assets.find(sha)
    assert path is not None
    path.chmod(0o644)
    path.unlink()
    os.symlink(private, path)
    return private.read_bytes()


def test_a_session_is_not_written_with_a_changed_image(tmp_path: Path) -> None:
    project = build_project(tmp_path / "r.winnow")
    try:
        sha = project.conn.execute("SELECT sha256 FROM model_outputs LIMIT 1").fetchone()[0]
        _link_elsewhere(project, sha, tmp_path)
        with pytest.raises(ValueError, match=f"image {sha[:12]} .* no longer matches"):
            make_session(project, tmp_path / "out", "ranking")
    finally:
        project.close()
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_curator_package_leaves_a_changed_image_out(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    try:
        sha = project.conn.execute("SELECT sha256 FROM sample_images WHERE sha256 IS NOT "
                                   "NULL LIMIT 1").fetchone()[0]
        private = _link_elsewhere(project, sha, tmp_path)
        report = split(project, tmp_path / "out")
    finally:
        project.close()
    with sqlite3.connect(package_path(report, "Alice")) as conn:
        carried = dict(conn.execute("SELECT sha256, data FROM team_image_data"))
    assert sha not in carried and carried  # the others are there
    assert private not in carried.values()
