"""An asset folder edited by hand, or received with a project: a stored image replaced
by other bytes, or by a link to a file elsewhere. The export named the sample's image
as the one the curator saw and shipped whatever the folder now held; now the sample is
left out, naming why, and the command exits 1 (ADR 004: assets are never modified)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from app.cli import run_cli
from core.curate.commands import SetField, UndoStack
from core.curate.detail import image_path, load_sample
from core.store import Project


def _tamper(project: Project, tmp_path: Path) -> dict[str, bytes]:
    """Replace s1's input image by a link to a photo outside, and s3's output by other
    bytes; return the outside photo's and the new bytes."""
    private = tmp_path / "private.png"
    Image.new("RGB", (40, 30), (1, 2, 3)).save(private)
    s1 = image_path(project, load_sample(project, "s1").images[0].sha256)
    s3 = image_path(project, load_sample(project, "s3").images[0].sha256)
    for path in (s1, s3):
        path.chmod(0o644)
        path.unlink()
    os.symlink(private, s1)
    Image.new("RGB", (32, 32), (0, 0, 0)).save(s3, "PNG")
    return {"private": private.read_bytes(), "other": s3.read_bytes()}


@pytest.mark.parametrize("fmt", ["jsonl", "hf"])
def test_a_changed_asset_is_not_exported(curate_project: Project, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         fmt: str) -> None:
    if fmt == "hf":
        pytest.importorskip("pyarrow")
    UndoStack(curate_project).push(SetField(["s2"], "quality", "Benchmark"))
    planted = _tamper(curate_project, tmp_path)
    path = str(curate_project.path)
    curate_project.close()
    out = tmp_path / "bench"
    assert run_cli(["export", "benchmark", path, "--out", str(out), "--format", fmt]) == 1
    report = json.loads(capsys.readouterr().out)
    reasons = {s["sample"]: s["reason"] for s in report["skipped"]}
    assert set(reasons) == {"s1", "s3"}
    assert all("no longer matches" in r for r in reasons.values())
    written = [p.read_bytes() for p in out.rglob("*") if p.is_file()]
    for data in planted.values():
        assert not any(data in w for w in written)
    assert report["exported"] == 1  # s2, untouched
