"""A photo folder or an output folder that is a symlink loop (ADR 211): named as a loop,
before any work, never a traceback; an import folder that does not exist says so."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.imaging import photos as repo
from core.imaging.loading import why_not_a_folder


def _photos(folder: Path) -> None:
    folder.mkdir(parents=True)
    Image.fromarray(np.full((40, 60, 3), 120, np.uint8)).save(folder / "a.jpg")


def test_why_not_a_folder_tells_a_loop_a_file_and_nothing_apart(tmp_path: Path) -> None:
    os.symlink(tmp_path / "circle", tmp_path / "circle")
    (tmp_path / "f.txt").write_text("x")
    os.symlink(tmp_path / "gone", tmp_path / "dangling")
    assert "symlink loop" in why_not_a_folder(tmp_path / "circle")
    assert "is a file, not a folder" in why_not_a_folder(tmp_path / "f.txt")
    assert "does not exist" in why_not_a_folder(tmp_path / "missing")
    assert "link to" in why_not_a_folder(tmp_path / "dangling")
    assert str(tmp_path / "circle") in why_not_a_folder(tmp_path / "circle")


def test_importing_a_looping_folder_names_the_loop(project, tmp_path: Path) -> None:
    os.symlink(tmp_path / "circle", tmp_path / "circle")
    with pytest.raises(NotADirectoryError, match="symlink loop"):
        repo.import_folder(project, tmp_path / "circle")


@pytest.mark.parametrize("which", ["in", "out"])
def test_anonymize_with_a_looping_folder_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    from app.cli import run_cli

    _photos(tmp_path / "in")
    os.symlink(tmp_path / "circle", tmp_path / "circle")
    folders = {"in": tmp_path / "in", "out": tmp_path / "out", which: tmp_path / "circle"}
    code = run_cli(["anonymize", str(folders["in"]), "--out", str(folders["out"]),
                    "--face-detector", "hog", "--no-plates"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured
    assert "symlink loop" in captured.err and str(tmp_path / "circle") in captured.err
    assert "Traceback" not in captured.err
    assert not (tmp_path / "out").exists()


def test_a_report_inside_a_looping_folder_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import run_cli

    _photos(tmp_path / "in")
    os.symlink(tmp_path / "circle", tmp_path / "circle")
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
                    "--report", str(tmp_path / "circle" / "r.json"),
                    "--face-detector", "hog", "--no-plates"])
    captured = capsys.readouterr()
    assert code == 2 and "symlink loop" in captured.err, captured
    assert not (tmp_path / "out").exists()  # refused before a photo was anonymized
