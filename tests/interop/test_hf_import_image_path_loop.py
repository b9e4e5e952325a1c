"""``import hf``: an image cell whose path is a symlink loop inside the dataset folder
names its row; Path.resolve raised RuntimeError, which ended the whole import."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import pattern, png_bytes

from core.interop.features import arrow_schema
from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_an_image_path_that_is_a_symlink_loop_names_its_row(project: Project,
                                                             tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    (folder / "loop.png").symlink_to(folder / "loop.png")
    schema = arrow_schema([("id", "string"), ("prompt", "string"),
                           ("output_images", ("list", "image"))])
    rows = [{"id": "loop", "prompt": "p", "output_images": [{"bytes": None,
                                                             "path": "loop.png"}]},
            {"id": "ok", "prompt": "p", "output_images": [
                {"bytes": png_bytes(pattern((8, 8), 1)), "path": None}]}]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / "train.parquet")
    report = import_hf(project, folder)
    assert report.imported == 1
    assert [e["row"] for e in report.errors] == [0]
    assert "'loop.png' is not a file inside ds" in report.errors[0]["error"]
