"""A user stores binary data (a BLOB) in a text column of the project with sqlite3: the
sample still loads for Curate (read as UTF-8), and both exports skip it, naming it and
the field, instead of stopping with a traceback (json: 'Object of type bytes')."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "safety"))
from safety_helpers import build_project  # noqa: E402

from core.curate.detail import load_sample  # noqa: E402
from core.curate.export import export_benchmark  # noqa: E402
from core.store import Project  # noqa: E402

EDITS = {"s001": "UPDATE samples SET prompt = X'FFFE41' WHERE id = 's001'",
         "s002": "UPDATE samples SET notes = X'00' WHERE id = 's002'",
         "s003": "UPDATE posts SET text = X'C3' WHERE id = 'p3'",
         "s004": "UPDATE sample_tags SET tag = X'FF' WHERE sample_id = 's004'"}


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    path = build_project(tmp_path / "p.winnow", n=6)
    with Project.open(path) as project, project.transaction() as conn:
        conn.execute("INSERT INTO sample_tags(sample_id, tag) VALUES ('s004', 'x')")
    conn2 = sqlite3.connect(path)
    for (name,) in conn2.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                 ).fetchall():
        conn2.execute(f"DROP TRIGGER {name}")
    for sql in EDITS.values():
        conn2.execute(sql)
    conn2.commit()
    conn2.close()
    return path


def test_curate_loads_binary_fields_as_text(edited: Path) -> None:
    with Project.open(edited) as project:
        d = load_sample(project, "s001")
        assert d.prompt == "\ufffd\ufffdA" and d.damaged == ("prompt",)
        assert load_sample(project, "s003").post.text == "\ufffd"  # type: ignore[union-attr]
        assert load_sample(project, "s003").damaged == ("post",)
        assert load_sample(project, "s004").tags == ["\ufffd"]
        assert load_sample(project, "s000").damaged == ()


def test_export_skips_and_names_binary_samples(edited: Path, tmp_path: Path) -> None:
    with Project.open(edited) as project:
        report = export_benchmark(project, tmp_path / "out")
    skipped = {s["sample"]: s["reason"] for s in report.skipped}
    assert set(skipped) == set(EDITS)
    assert "binary data instead of text in: prompt" in skipped["s001"]
    assert "in: notes" in skipped["s002"] and "in: post" in skipped["s003"]
    assert "in: tags" in skipped["s004"]
    lines = (tmp_path / "out" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(x)["id"] for x in lines) == ["s000", "s005"]


def test_hf_export_skips_and_names_binary_samples(edited: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from core.interop.hf_export import export_benchmark_hf

    with Project.open(edited) as project:
        report = export_benchmark_hf(project, tmp_path / "hf")
    assert {s["sample"] for s in report.skipped} == set(EDITS)
    assert report.exported == 2


@pytest.mark.xfail(strict=True, reason="core/teamwork/split.py: `winnow curate split` on a "
                   "project with a BLOB in samples.prompt stops with a traceback (TypeError: "
                   "Object of type bytes is not JSON serializable) instead of naming the "
                   "sample; owner: teamwork")
def test_curate_split_names_a_binary_sample(edited: Path, tmp_path: Path) -> None:
    from core.teamwork.split import split_project

    with Project.open(edited) as project:
        split_project(project, tmp_path / "team", ["A", "B"])
