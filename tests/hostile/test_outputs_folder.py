"""`winnow import outputs` on a hostile outputs folder: links that lead outside it are
never read (ADR 176), and a file that could not be imported makes the command exit 1."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from app.cli import run_cli
from core.ingest.outputs import import_outputs
from core.store import Project
from core.store.project import now_iso


def _png(color: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(buf, "PNG")
    return buf.getvalue()


def _project(path: Path, samples: tuple[str, ...] = ("s1", "s2", "s3")) -> Path:
    with Project.create(path) as project, project.transaction() as conn:
        for sid in samples:
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, quality, "
                         "created_at, modified_at) VALUES (?,?,?,?,?,?,?)",
                         (sid, "p", "p", "text-to-image", "Benchmark", now_iso(), now_iso()))
    return path


def test_links_leading_outside_the_folder_are_refused_and_never_read(tmp_path: Path) -> None:
    """A symlink `m1/s2.png` to a photo elsewhere on the disk, or a model folder that is a
    link to another folder, copied that photo into the project (and so into exports and
    rating sessions). A link that stays inside the folder is an ordinary file."""
    elsewhere = tmp_path / "private"
    elsewhere.mkdir()
    (elsewhere / "s1.png").write_bytes(_png("red"))
    (elsewhere / "holiday.png").write_bytes(_png("blue"))
    root = tmp_path / "outs"
    (root / "m1").mkdir(parents=True)
    (root / "m1" / "s1.png").write_bytes(_png("green"))
    os.symlink(elsewhere / "holiday.png", root / "m1" / "s2.png")
    os.symlink("s1.png", root / "m1" / "s3.png")  # inside the folder: fine
    os.symlink(elsewhere, root / "m2")  # a whole model folder elsewhere
    with Project.open(_project(tmp_path / "p.winnow")) as project:
        report = import_outputs(project, root)
        stored = {(s, m) for s, m in project.conn.execute(
            "SELECT sample_id, model FROM model_outputs")}
    assert stored == {("s1", "m1"), ("s3", "m1")}
    errors = {e["file"]: e["error"] for e in report.errors}
    assert set(errors) == {"m1/s2.png", "m2"}
    for error in errors.values():
        assert "outside" in error and "never read" in error
        assert "holiday" not in error  # where the link leads is not the folder's business


def test_a_file_that_could_not_be_imported_makes_the_command_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit status 0 although `m1/s2.png` was not imported: a script saw success."""
    project = _project(tmp_path / "p.winnow")
    root = tmp_path / "outs"
    (root / "m1").mkdir(parents=True)
    (root / "m1" / "s1.png").write_bytes(_png("green"))
    (root / "m1" / "s2.png").write_bytes(b"\x89PNG truncated")
    assert run_cli(["import", "outputs", str(root), "-p", str(project)]) == 1
    out = capsys.readouterr().out
    assert "1 imported" in out and "m1/s2.png" in out
    (root / "m1" / "s2.png").write_bytes(_png("blue"))
    assert run_cli(["import", "outputs", str(root), "-p", str(project), "--json"]) == 0
