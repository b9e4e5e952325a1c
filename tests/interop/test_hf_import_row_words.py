"""``import hf`` hands rows to the JSON Lines importer in chunks; an importer message
that points at another *line* of the chunk ("is the id on line 5 …", "differs from the
post on line 1 …") named a line of a hidden file the user never sees, which is not the
row's number (and in a later chunk, not even close). It names the split and row."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_another_line_is_named_as_its_split_and_row(project: Project, tmp_path: Path) -> None:
    rows = {"id": ["a", "b", "c", "d", "é", "e\u0301", "q", "r"],
            "prompt": ["p"] * 8,
            "post_id": [None] * 6 + ["P", "P"],
            "author": [None] * 6 + ["@ann", "@bob"]}
    pq.write_table(pa.table(rows), tmp_path / "test.parquet")
    report = import_hf(project, tmp_path / "test.parquet", chunk_rows=4)
    errors = {e["row"]: e["error"] for e in report.errors}
    assert set(errors) == {5, 7}, errors
    assert "is the id on test row 4 written in another Unicode form" in errors[5]
    assert "this row was not imported" in errors[5]
    assert "differs from the copy embedded on test row 6 in field 'author'" in errors[7]
    assert not any("line" in e for e in errors.values()), errors
