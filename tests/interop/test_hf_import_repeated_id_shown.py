"""``import hf`` refusing a repeated id shows it as every other report does (ADR 160,
166): cut after 80 characters with its length, direction characters spelt out; the
whole id went into the message (a 100,000-character id made a 100,000-character line,
an RTL override reversed the line around it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_a_repeated_long_or_rtl_id_is_shown_short_and_visible(project: Project,
                                                              tmp_path: Path) -> None:
    long, rtl = "x" * 900, "abc\u202edef"  # under the importer's 1,000 (a longer id is
    # refused by it, so its repeat is then imported in its place or refused alike, ADR 200)
    pq.write_table(pa.table({"id": [long, long, rtl, rtl], "prompt": ["p"] * 4}),
                   tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    errors = {e["row"]: e["error"] for e in report.errors if "already used" in e["error"]}
    assert set(errors) == {1, 3}
    assert len(errors[1]) < 300 and "(900 characters)" in errors[1]
    assert "\u202e" not in errors[3] and "abc" in errors[3]
