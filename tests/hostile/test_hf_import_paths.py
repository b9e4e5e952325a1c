"""Hugging Face import: path-only image cells that point outside the dataset folder, or
are not paths at all. Each row is refused naming its column; every other row is read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interop"))
from interop_helpers import pattern, png_bytes  # noqa: E402

from core.interop.hf_import import import_hf  # noqa: E402
from core.store import Project  # noqa: E402

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_hostile_paths_are_row_errors_and_the_rest_is_read(tmp_path: Path) -> None:
    """A NUL byte or a 5,000-character path raised ValueError/OSError out of the row:
    the rest of the parquet file was dropped without a word ('embedded null byte')."""
    from core.interop.features import arrow_schema

    (tmp_path / "secret.png").write_bytes(png_bytes(pattern((10, 10), 3)))
    src = tmp_path / "ds"
    (src / "data").mkdir(parents=True)
    (src / "in.png").write_bytes(png_bytes(pattern((10, 10), 4)))
    os.symlink(tmp_path / "secret.png", src / "link.png")
    paths = {"dotdot": "../secret.png", "abs": str(tmp_path / "secret.png"),
             "link": "link.png", "nul": "a\x00b.png", "long": "x" * 5000 + ".png",
             "dir": "data", "ok": "in.png"}
    schema = arrow_schema([("id", "string"), ("prompt", "string"),
                           ("output_images", ("list", "image"))])
    rows = [{"id": k, "prompt": "p", "output_images": [{"bytes": None, "path": v}]}
            for k, v in paths.items()]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema),
                   src / "data" / "train-00000-of-00001.parquet")
    with Project.create(tmp_path / "p.winnow") as project:
        report = import_hf(project, src)
        ids = [r[0] for r in project.conn.execute("SELECT id FROM samples")]
    assert report.rows == len(paths) and ids == ["ok"]
    errors = {e["row"]: e["error"] for e in report.errors}
    assert sorted(errors) == list(range(len(paths) - 1))
    for row, error in errors.items():
        assert error.startswith("'output_images[0]' is not embedded and "), (row, error)
        assert error.endswith("is not a file inside ds")
    assert "5,004 characters" in errors[4] and len(errors[4]) < 300
    assert "secret" not in str(report.image_errors)
