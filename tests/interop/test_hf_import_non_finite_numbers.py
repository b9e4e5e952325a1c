"""``import hf`` and NaN or infinite numbers (ADR 200): they reached the importer as the
bare words ``NaN``/``Infinity`` and were refused as "Infinity is not a JSON value",
naming no column; a NaN prompt or id cell became the text "nan". Each now names its
row and column."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize(("column", "arrow_type", "value", "expected"), [
    ("engagement", pa.string(), '{"likes": NaN}',
     "'engagement' (engagement): NaN is not a JSON value"),
    ("engagement", pa.string(), '{"score": Infinity}',
     "'engagement' (engagement): Infinity is not a JSON value"),
    ("engagement", pa.float64(), math.nan, "'engagement' (engagement) is nan, not a value "
                                           "that can be imported"),
    ("engagement", pa.string(), "[1, 2]", "'engagement' must be a JSON object of counts "
                                          'such as {"likes": 12}, got list'),
    ("tags", pa.list_(pa.float64()), [math.inf],
     "'tags' holds a number that is NaN or infinite; only finite numbers can be imported"),
    ("community_feedback", pa.list_(pa.struct([("text", pa.string()),
                                                ("score", pa.float64())])),
     [{"text": "nice", "score": math.nan}],
     "'community_feedback' holds a number that is NaN or infinite; only finite numbers "
     "can be imported"),
    ("quality", pa.float64(), math.inf, "'quality' (quality) is inf, not a value that can "
                                        "be imported"),
])
def test_a_non_finite_number_names_its_row_and_column(
        project: Project, tmp_path: Path, column: str, arrow_type: Any, value: Any,
        expected: str) -> None:
    schema = pa.schema([("id", pa.string()), ("prompt", pa.string()), ("post_id", pa.string()),
                        (column, arrow_type)])
    rows = [{"id": "ok", "prompt": "fine", "post_id": "p1"},
            {"id": "bad", "prompt": "p", "post_id": "p2", column: value}]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    assert report.imported == 1
    assert [(e["row"], e["error"]) for e in report.errors] == [(1, expected)]


def test_a_nan_prompt_is_not_imported_as_the_text_nan(project: Project,
                                                      tmp_path: Path) -> None:
    pq.write_table(pa.table({"prompt": [math.nan, 1.5]}), tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    assert [(e["row"], e["error"]) for e in report.errors] == [
        (0, "'prompt' (prompt) is nan, not a value that can be imported")]
    assert [p for (p,) in project.conn.execute("SELECT prompt FROM samples")] == ["1.5"]
