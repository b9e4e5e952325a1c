"""A user stores binary data (a BLOB) in a text column of the project with sqlite3: the
sample still loads for Curate (read as UTF-8), both exports skip it, naming it and the
field, instead of stopping with a traceback (json: 'Object of type bytes'), and so does
a team split (ADR 157)."""

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
from core.selection import SampleFilter  # noqa: E402
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


def test_curate_split_skips_and_names_binary_samples(edited: Path, tmp_path: Path) -> None:
    """As the exports do (ADR 154, 157): every other sample is shared, each damaged one is
    named with its fields; the packages merge back; the stored bytes are untouched."""
    from core.teamwork.merge import merge_packages
    from core.teamwork.split import SplitError, split_project

    with Project.open(edited) as project:
        report = split_project(project, tmp_path / "team", ["A", "B"], seed=1)
        skipped = {d["sample"]: d for d in report.skipped}
        assert set(skipped) == set(EDITS) and report.samples == 2
        assert skipped["s001"]["fields"] == ["prompt"]
        assert "binary data instead of text in: prompt" in skipped["s001"]["reason"]
        assert skipped["s002"]["fields"] == ["notes"]
        assert skipped["s003"]["fields"] == ["post"]
        assert skipped["s004"]["fields"] == ["tags"]
        assert report.to_json()["skipped"] == report.skipped
        files = [tmp_path / "team" / p["file"] for p in report.packages]
        shared = set()
        for path in files:
            with Project.open(path) as package:
                shared |= {r[0] for r in package.conn.execute("SELECT id FROM samples")}
        assert shared == {"s000", "s005"}
        results, refusals = merge_packages(project, files)
        assert refusals == [] and [r.applied for r in results] == [0, 0]
        assert project.conn.execute("SELECT typeof(prompt), prompt FROM samples WHERE id = "
                                    "'s001'").fetchone() == ("blob", b"\xff\xfeA")
        with pytest.raises(SplitError, match=r"no sample can be shared.*s001: binary data "
                                             r"instead of text in: prompt"):
            split_project(project, tmp_path / "team2", ["A"],
                          selection=SampleFilter(ids=("s001", "s002")))
        assert not (tmp_path / "team2").exists()


def test_cli_split_names_binary_samples_and_exits_1(edited: Path, tmp_path: Path) -> None:
    import os
    import subprocess

    out = subprocess.run([sys.executable, "-m", "app", "curate", "split", str(edited),
                          "--out", str(tmp_path / "team"), "--names", "A,B"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "skipped: s001: binary data instead of text in: prompt" in out.stderr
    assert "skipped: s004: binary data instead of text in: tags" in out.stderr
    assert "2 samples" in out.stdout
    assert len(list((tmp_path / "team").glob("*.winnow"))) == 2
