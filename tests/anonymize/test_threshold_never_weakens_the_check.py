"""`winnow anonymize --threshold`: a raised face threshold finds fewer faces, but the
check of the written file still looks at the usual threshold (SPEC §4, ADR 176). With
`--threshold 0.9` five faces (scores 0.81–0.90) were left in the clear and the output
was written as verified; `--threshold nan` or `2` hid nothing and verified nothing."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from anon_helpers import need_centerface

from app.cli import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from shared_data import need_testdata  # noqa: E402


@pytest.mark.parametrize("threshold", ["nan", "inf", "2", "1", "0", "-1"])
def test_a_threshold_outside_0_1_is_refused(tmp_path: Path, capsys, threshold: str) -> None:
    (tmp_path / "in").mkdir()
    with pytest.raises(SystemExit):
        run_cli(["anonymize", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
                 "--threshold", threshold])
    assert "argument --threshold: expected a score between 0 and 1" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_raised_threshold_does_not_raise_the_check(tmp_path: Path, capsys) -> None:
    need_centerface()
    from core.imaging.detect import centerface_faces
    from core.imaging.loading import load_rgb

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(need_testdata("faces") / "2008_002470.jpg", folder)
    code = run_cli(["anonymize", str(folder), "--out", str(tmp_path / "out"), "--no-plates",
                    "--threshold", "0.9"])
    summary = json.loads(capsys.readouterr().out)
    out = tmp_path / "out" / "2008_002470.jpg"
    if out.exists():  # written only if no face is left at the usual threshold
        assert [d for d in centerface_faces(load_rgb(out), 0.2) if d.score >= 0.5] == []
    else:
        assert code == 1 and [f["file"] for f in summary["failed"]] == ["2008_002470.jpg"]
