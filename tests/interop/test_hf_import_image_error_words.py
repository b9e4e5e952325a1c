"""``import hf``: an embedded image that fails the decode checks is named by split, row
and column; its message began with the working name Winnow gave the bytes
("edits/b7d082ee…: not an image"), which looks like a file of the dataset and is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.interop.features import arrow_schema
from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_an_embedded_image_error_starts_with_what_is_wrong(project: Project,
                                                            tmp_path: Path) -> None:
    folder = tmp_path / "edits"
    folder.mkdir()
    schema = arrow_schema([("id", "string"), ("prompt", "string"), ("image", "image")])
    pq.write_table(pa.Table.from_pylist([{"id": "h", "prompt": "p", "image": {
        "bytes": b"<html><body>nope</body></html>", "path": None}}], schema=schema),
        folder / "train.parquet")
    report = import_hf(project, folder)
    assert report.imported == 1
    [error] = report.image_errors
    assert (error["row"], error["column"]) == (0, "output_images[0]")
    assert error["error"] == "not an image (looks like HTML)"
