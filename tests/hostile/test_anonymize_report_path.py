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
