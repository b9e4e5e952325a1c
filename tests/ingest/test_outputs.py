"""Model outputs import: layout, missing/extra report, idempotence, bad files."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from core.ingest.outputs import import_outputs, output_models
from core.store import Project


def _png(color: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def with_samples(project: Project) -> Project:
    with project.transaction() as conn:
        for sid in ("s1", "s2", "s3"):
            conn.execute("INSERT INTO samples(id, prompt, original_prompt, created_at, "
                         "modified_at) VALUES (?, 'p', 'p', 'now', 'now')", (sid,))
    return project


def test_outputs_report_missing_extra_and_errors(with_samples: Project, tmp_path: Path) -> None:
    root = tmp_path / "outs"
    for model, colors in {"m1": ["red", "green", "blue"], "m2": ["red", "green"]}.items():
        (root / model).mkdir(parents=True)
        for k, color in enumerate(colors, 1):
            (root / model / f"s{k}.png").write_bytes(_png(color))
    (root / "m2" / "s9.png").write_bytes(_png("white"))       # no such sample
    (root / "m2" / "notes.txt").write_text("hello")            # not an image
    (root / "m1" / "s3.png").write_bytes(b"\x89PNG broken")     # corrupt
    report = import_outputs(with_samples, root)
    assert report.imported == 4
    assert report.missing == {"m2": ["s3"]}  # m1's s3 exists but is corrupt: an error
    assert sorted(report.extra) == ["m2/notes.txt", "m2/s9.png"]
    assert report.errors[0]["file"] == "m1/s3.png"
    assert output_models(with_samples) == ["m1", "m2"]
    again = import_outputs(with_samples, root)
    assert (again.imported, again.updated, again.unchanged) == (0, 0, 4)
    (root / "m1" / "s1.png").chmod(0o644)
    (root / "m1" / "s1.png").write_bytes(_png("black"))
    third = import_outputs(with_samples, root, models=["m1"])
    assert third.updated == 1 and set(third.models) == {"m1"}
    with pytest.raises(FileNotFoundError, match="m7"):
        import_outputs(with_samples, root, models=["m7"])
    with pytest.raises(NotADirectoryError):
        import_outputs(with_samples, tmp_path / "nope")
