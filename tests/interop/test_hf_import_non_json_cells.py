"""``import hf``: a column passed on as it is (tags, community_feedback, is_screenshot,
boxes) whose cells hold bytes, dates or decimals names its row; json.dumps raised
TypeError, which ended the whole import (rows of earlier chunks committed, the rest
never read)."""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path
from typing import Any

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize(("column", "arrow_type", "value", "kind"), [
    ("tags", pa.list_(pa.binary()), [b"x"], "bytes"),
    ("tags", pa.list_(pa.decimal128(5, 2)), [decimal.Decimal("1.5")], "Decimal"),
    ("is_screenshot", pa.timestamp("s"), datetime.datetime(2020, 1, 1), "datetime"),
    ("is_screenshot", pa.binary(), b"\x01", "bytes"),
    ("community_feedback", pa.list_(pa.date32()), [datetime.date(2020, 1, 1)], "date"),
    ("output_bboxs", pa.list_(pa.binary()), [b"x"], "bytes"),
])
def test_a_cell_json_cannot_hold_names_its_row(project: Project, tmp_path: Path, column: str,
                                               arrow_type: Any, value: Any, kind: str
                                               ) -> None:
    schema = pa.schema([("id", pa.string()), ("prompt", pa.string()), (column, arrow_type)])
    rows = [{"id": "bad", "prompt": "p", column: value}, {"id": "ok", "prompt": "fine"}]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    assert report.imported == 1
    assert [(e["row"], e["error"]) for e in report.errors] == [
        (0, f"'{column}' holds {kind} values; only text, numbers, true/false, lists "
            "and objects can be imported")]
