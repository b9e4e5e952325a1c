"""``--format parquet`` for rating and metric results: same rows as the CSV, typed
columns, read by pandas and polars."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from core.interop.parquet import (
    export_metrics_parquet,
    export_results_parquet,
    format_for,
    write_table,
)
from core.metrics.base import MetricResult
from core.metrics.store import export_csv, save_results

REPO = Path(__file__).resolve().parents[2]


def _metrics(project) -> None:  # type: ignore[no-untyped-def]
    from core.store.project import now_iso

    with project.transaction() as conn:
        conn.execute("INSERT INTO samples(id, prompt, original_prompt, created_at, "
                     "modified_at) VALUES ('s1', 'p', 'p', ?, ?)", (now_iso(), now_iso()))
    save_results(project, "colour_shift", 2, {"bins": 8}, "h1", [
        ("s1", "m1", "in1", MetricResult("ok", 0.125, {"b_shift": 3.5}), 0.2),
        ("s1", "m2", "in2", MetricResult("error", None, {}, "no face"), None)])


def test_metric_results_match_the_csv_with_types(project, tmp_path: Path) -> None:
    _metrics(project)
    n = export_metrics_parquet(project, tmp_path / "m.parquet")
    export_csv(project, tmp_path / "m.csv")
    got = pd.read_parquet(tmp_path / "m.parquet")
    csv = pd.read_csv(tmp_path / "m.csv", keep_default_na=False)
    assert n == len(got) == len(csv) == 3
    assert list(got.columns) == list(csv.columns)
    assert str(got["value"].dtype) == "float64" and str(got["version"].dtype) == "int64"
    assert str(got["computed_at"].dtype) == "datetime64[ms, UTC]"
    assert got["metric"].tolist() == ["colour_shift", "colour_shift/b_shift", "colour_shift"]
    assert got["value"].tolist()[:2] == [0.125, 3.5] and pd.isna(got["value"][2])
    assert got["error"].tolist()[2] == "no face" and pd.isna(got["error"][0])
    assert csv["value"].tolist() == ["0.125", "3.5", ""]
    for col in ("sample_id", "model", "metric", "status", "params", "details"):
        assert got[col].fillna("").tolist() == csv[col].tolist(), col
    stamp = pd.Timestamp(csv["computed_at"][0])
    assert got["computed_at"][0] == stamp.floor("ms")


def test_polars_reads_them_too(project, tmp_path: Path) -> None:
    pl = pytest.importorskip("polars")
    _metrics(project)
    export_metrics_parquet(project, tmp_path / "m.parquet")
    frame = pl.read_parquet(tmp_path / "m.parquet")
    assert frame.schema["value"] == pl.Float64 and frame.schema["version"] == pl.Int64
    assert frame["metric"].to_list()[1] == "colour_shift/b_shift"


def test_rating_results_match_the_csv(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "rating"))
    try:
        from rating_helpers import build_project, make_session, simple_answer
    finally:
        sys.path.pop(0)
    from core.rating.merge import merge_files
    from core.rating.results import export_results
    from core.rating.session_file import RatingSession

    project = build_project(tmp_path / "r.winnow")
    for protocol in ("ranking", "likert", "checklist"):
        for path in make_session(project, tmp_path / protocol, protocol):
            rs = RatingSession.open(path)
            rs.set_rater(f"rater {path.stem[-2:]}")
            while (task := rs.next_task()) is not None:
                rs.submit(task.task_id, simple_answer(task), time_ms=1500)
            rs.close()
            merge_files(project, [path])
        export_results(project, protocol, tmp_path / f"{protocol}.csv")
        n = export_results_parquet(project, protocol, tmp_path / f"{protocol}.parquet")
        got = pd.read_parquet(tmp_path / f"{protocol}.parquet")
        want = pd.read_csv(tmp_path / f"{protocol}.csv", dtype=str)
        assert n == len(got) == len(want) > 0
        assert list(got.columns) == list(want.columns)
        for col in got.columns:
            assert got[col].astype(str).tolist() == want[col].tolist(), (protocol, col)
        ints = {"ranking": ["rank"], "likert": ["value"],
                "checklist": [f"q{k}" for k in range(1, 7)]}[protocol]
        assert all(str(got[c].dtype) == "int64" for c in ints)
    project.close()


def test_existing_file_is_refused_unless_replacing(tmp_path: Path) -> None:
    out = tmp_path / "x.parquet"
    out.write_bytes(b"someone else's")
    with pytest.raises(FileExistsError):
        write_table(out, [("a", "int64")], [(1,)])
    assert out.read_bytes() == b"someone else's"
    assert write_table(out, [("a", "int64")], [(1,), (2,)], replace=True) == 2
    assert pd.read_parquet(out)["a"].tolist() == [1, 2]


def test_bad_values_and_empty_tables(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="row 2"):
        write_table(tmp_path / "t.parquet", [("at", "timestamp")],
                    [("2025-01-01T00:00:00Z",), ("yesterday",)])
    assert not (tmp_path / "t.parquet").exists()
    with pytest.raises(ValueError, match="column type"):
        write_table(tmp_path / "i.parquet", [("n", "int64")], [("seven",)])
    assert write_table(tmp_path / "e.parquet", [("n", "int64")], []) == 0
    assert pd.read_parquet(tmp_path / "e.parquet").columns.tolist() == ["n"]
    # no temporary file is left; the marker records the export (ADR 005, ADR 187)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".winnow-files.jsonl", "e.parquet"]


def test_format_follows_the_file_name_unless_given() -> None:
    assert format_for("r.parquet") == "parquet" and format_for("r.PARQUET") == "parquet"
    assert format_for("r.csv") == "csv" and format_for("r.csv", "parquet") == "parquet"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def test_cli_metrics_export_parquet(project, tmp_path: Path) -> None:
    _metrics(project)
    project.close()
    run = _cli("metrics", "export", str(project.path), "--out", "m.parquet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(pd.read_parquet(tmp_path / "m.parquet")) == 3
    run = _cli("metrics", "export", str(project.path), "--out", "m.parquet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr  # its own earlier export is replaced (ADR 005)
    with (tmp_path / "m.parquet").open("ab") as fh:  # a file changed since is not
        fh.write(b"edited")
    run = _cli("metrics", "export", str(project.path), "--out", "m.parquet", cwd=tmp_path)
    assert run.returncode == 2 and "exists" in run.stderr and "Traceback" not in run.stderr
    run = _cli("metrics", "export", str(project.path), "--out", "m.data", "--format",
               "parquet", cwd=tmp_path)
    assert run.returncode == 0 and len(pd.read_parquet(tmp_path / "m.data")) == 3
