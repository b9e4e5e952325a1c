"""Projects on paths with spaces, unicode and a newline, and reached through a symlinked
folder: import, export and a second writer behave as on a plain path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "safety"))
from safety_helpers import write_sources  # noqa: E402

from core.curate.export import export_benchmark  # noqa: E402
from core.ingest.importer import import_jsonl  # noqa: E402
from core.store import Project  # noqa: E402
from core.store.errors import ProjectLockedError  # noqa: E402


@pytest.mark.parametrize("folder", ["with space", "ünïcødé 名前", "new\nline", "-dash"])
def test_import_and_export_on_odd_paths(tmp_path: Path, folder: str) -> None:
    base = tmp_path / folder
    base.mkdir()
    jsonl, _outputs = write_sources(base / "src", n=3)
    with Project.create(base / f"{folder}.winnow") as project:
        report = import_jsonl(project, jsonl)
        assert report.imported == 6 and report.images_failed == 0
        out = export_benchmark(project, base / "out dir")
    assert out.exported == 3 and out.skipped == []
    lines = (base / "out dir" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines:
        for rel in json.loads(line)["input_images"]:
            assert (base / "out dir" / rel).is_file()


def test_a_symlinked_folder_is_the_same_project_for_the_lock(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    with Project.create(real / "p.winnow"):
        with pytest.raises(ProjectLockedError, match="already open for writing"):
            Project.open(tmp_path / "link" / "p.winnow")
        with Project.open(tmp_path / "link" / "p.winnow", readonly=True) as other:
            assert other.readonly
