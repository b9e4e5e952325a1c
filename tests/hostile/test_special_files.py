"""A pipe, a device or a socket given where a rater file or a curator package belongs:
refused at once, naming it. Opening a pipe to read it waited for a writer for ever
(`winnow session merge`, `session audit`, `curate merge`, the rater view)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.rating.audit import audit_file
from core.rating.merge import merge_files
from core.rating.returned import check_rateable
from core.rating.session_file import SessionFileError
from core.store import Project
from core.teamwork.merge import merge_packages


def _special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"x-{kind}.winnow-session"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    else:
        path = Path("/dev/zero")
    return path


def _merge(project: Project, path: Path) -> list[str]:
    return merge_files(project, [path])[1]


def _curate(project: Project, path: Path) -> list[str]:
    return merge_packages(project, [path])[1]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
@pytest.mark.parametrize("merge", [_merge, _curate], ids=["session", "curate"])
def test_merges_refuse_special_files(tmp_path: Path, kind: str,
                                     merge: Callable[[Project, Path], list[str]]) -> None:
    path = _special(tmp_path, kind)
    with Project.create(tmp_path / "p.winnow") as project:
        refused = merge(project, path)
    assert len(refused) == 1 and path.name in refused[0]
    assert "not a regular file" in refused[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("check", [audit_file, check_rateable])
def test_audit_and_rater_view_refuse_special_files(tmp_path: Path, kind: str,
                                                   check: Callable[[Path], Any]) -> None:
    path = _special(tmp_path, kind)
    with pytest.raises(SessionFileError, match="not a regular file"):
        check(path)


def test_anonymize_scan_skips_a_pipe_among_photos(tmp_path: Path) -> None:
    """`winnow anonymize DIR` read a pipe named x.jpg and waited for ever."""
    from core.imaging.batch import scan

    (tmp_path / "in").mkdir()
    os.mkfifo(tmp_path / "in" / "x.jpg")
    (tmp_path / "in" / "y.jpg").write_bytes(b"\xff\xd8 not really")
    os.symlink(tmp_path / "in" / "gone.jpg", tmp_path / "in" / "z.jpg")  # dangling: a read error
    photos, skipped = scan(tmp_path / "in", tmp_path / "out")
    assert photos == [Path("y.jpg"), Path("z.jpg")]
    assert skipped == [{"file": "x.jpg", "reason": "not a regular file (a pipe, a device or "
                        "a socket); nothing was written"}]


def test_output_import_names_a_pipe_instead_of_ignoring_it(tmp_path: Path) -> None:
    """A pipe named <model>/<sample>.png was left out without a word."""
    from core.ingest.outputs import import_outputs
    from core.store.project import now_iso

    (tmp_path / "out" / "m1").mkdir(parents=True)
    os.mkfifo(tmp_path / "out" / "m1" / "s1.png")
    os.symlink(tmp_path / "gone.png", tmp_path / "out" / "m1" / "s2.png")
    with Project.create(tmp_path / "p.winnow") as project:
        with project.transaction() as conn:
            for sid in ("s1", "s2"):
                conn.execute("INSERT INTO samples(id, prompt, original_prompt, split, "
                             "quality, created_at, modified_at) VALUES (?,?,?,?,?,?,?)",
                             (sid, "p", "p", "text-to-image", "Benchmark", now_iso(),
                              now_iso()))
        report = import_outputs(project, tmp_path / "out")
    errors = {e["file"]: e["error"] for e in report.errors}
    assert set(errors) == {"m1/s1.png", "m1/s2.png"} and report.imported == 0
    assert "not a regular file" in errors["m1/s1.png"]
