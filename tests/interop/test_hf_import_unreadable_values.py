"""``import hf``: a cell Python cannot hold (a timestamp past year 9999) made pyarrow's
to_pylist raise OverflowError, which ended the whole import; the row is named with its
column and every other row of the batch and the file is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_a_timestamp_past_year_9999_names_its_row(project: Project, tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["a", "b", "c"], "post_id": ["p", "q", "r"],
                             "timestamp": pa.array([0, 2**62, 1000], pa.timestamp("ms"))}),
                   folder / "train.parquet")
    pq.write_table(pa.table({"prompt": ["d"]}), folder / "test.parquet")
    report = import_hf(project, folder)
    assert report.imported == 3
    [error] = report.errors
    assert (error["split"], error["row"]) == ("train", 1)
    assert error["error"].startswith("'timestamp' holds a value that cannot be read")
    assert project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 3
