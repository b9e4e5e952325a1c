"""`winnow anonymize --report PATH` where PATH is where an output goes: the report
replaced the anonymized photo (a file Winnow had just written, so ADR 005 let it), the
summary still listed the photo as written, exit 0. And PATH = the folder's ownership
marker was refused only after every photo was done. Both are refused before any work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.cli import run_cli


@pytest.mark.parametrize("name", ["x.jpg", "x.UNVERIFIED.jpg", ".winnow-files.jsonl",
                                  "sub/../x.jpg"])
def test_a_report_where_an_output_goes_is_refused(tmp_path: Path, capsys,
                                                  name: str) -> None:
    pytest.importorskip("cv2")
    (tmp_path / "in").mkdir()
    Image.fromarray(np.full((40, 60, 3), 90, np.uint8)).save(tmp_path / "in" / "x.jpg")
    out = tmp_path / "out"
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(out), "--no-plates",
                    "--report", str(out / name)])
    assert code == 2
    assert "--report" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("kind", ["folder", "foreign file"])
def test_a_report_onto_a_folder_or_a_foreign_file_is_refused_before_any_work(
        tmp_path: Path, capsys, kind: str) -> None:
    """A folder given as ``--report`` was called a file Winnow "cannot prove it wrote";
    it is a folder, and is said to be, before any photo is anonymized."""
    pytest.importorskip("cv2")
    (tmp_path / "in").mkdir()
    Image.fromarray(np.full((40, 60, 3), 90, np.uint8)).save(tmp_path / "in" / "x.jpg")
    report = tmp_path / "report"
    if kind == "folder":
        report.mkdir()
    else:
        report.write_text("the user's notes")
    out = tmp_path / "out"
    code = run_cli(["anonymize", str(tmp_path / "in"), "--out", str(out), "--no-plates",
                    "--report", str(report)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"{report} is a folder" in err if kind == "folder" else \
        "cannot prove it wrote it" in err
    assert "left it as it is" in err
    assert report.is_dir() if kind == "folder" else report.read_text() == "the user's notes"
