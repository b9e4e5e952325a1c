"""Data set registry: CSV kinds, validation messages, providers, rating/metric providers."""

from __future__ import annotations

from pathlib import Path

import analyze_data as data
import pytest

from core.analysis import sources
from core.analysis.sources import DataSet, detect_kind, open_csv, project_datasets
from core.stats.tables import CsvFormatError


@pytest.mark.parametrize(("kind", "rows"), [
    ("votes", data.votes(50, raters=2)),
    ("rankings", data.rankings(5, 2)),
    ("likert", data.likert(3, 2)),
    ("checklist", data.checklist()),
    ("scores", data.scores(5, judges=2)),
])
def test_open_csv_detects_kind_and_keeps_typed_rows(tmp_path: Path, kind: str, rows) -> None:  # type: ignore[no-untyped-def]
    path = data.write_csv(tmp_path / f"{kind}.csv", rows)
    ds = open_csv(path)
    assert ds.kind == kind and ds.source == "CSV file"
    loaded = ds.load()
    assert len(loaded) == len(rows)
    for got, want in zip(loaded[:20], rows[:20], strict=False):
        for key, value in want.items():
            assert got[key] == (str(value) if isinstance(value, str) else value), key


def test_detect_kind_prefers_the_specific_header() -> None:
    assert detect_kind(["rater", "unit", "model", "criterion", "value"]) == "likert"
    assert detect_kind(["A", "B", "Winner", "rater"]) == "votes"
    assert detect_kind(["sample", "model", "score", "judge"]) == "scores"
    assert detect_kind(["foo", "bar"]) is None


@pytest.mark.parametrize(("text", "message"), [
    ("a,b,winner\nx,y,a\nx,y,maybe\n", "row 3, column 'winner'"),
    ("rater,item,model,rank\nr,i,m,1\nr,i,n,first\n", "row 3, column 'rank'"),
    ("rater,unit,model,criterion,value\nr,u,m,IF,4\nr,u,m,IF,5\n", "row 3"),
    ("foo,bar\n1,2\n", "cannot tell what this file holds"),
    ("", "the file is empty"),
    ("a,b,winner\n", "no votes"),
])
def test_bad_csv_names_row_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(CsvFormatError, match="bad.csv") as err:
        open_csv(path)
    assert message in str(err.value)


@pytest.mark.parametrize(("data", "message"), [
    # another tool's file: its header is named, not a field count on some row
    (b'{"id": "x", "prompt": "y"}\n{"id": "z"}\n', "(header: '{\"id\": \"x\"', "),
    (b"foo,bar\n1,2\n", "(header: 'foo', 'bar')"),
    (b"a|b|winner\nx|y|a\n", "separated by bars: save it comma-separated"),
    ("a,b,winner\nx,y,a\n".encode("utf-16-le"), "UTF-16 text without a byte-order mark"),
    (b"a,b,winner\nm\xe9,y,a\n", 'row 2: not UTF-8 text (byte 12 cannot be decoded); save it '
                                 'as UTF-8 text (in Excel: "CSV UTF-8")'),
])
def test_a_file_that_is_not_a_statistics_csv_says_what_it_holds(
        tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "other.csv"
    path.write_bytes(data)
    with pytest.raises(CsvFormatError, match="other.csv") as err:
        open_csv(path)
    assert message in str(err.value)
    if "UTF-" not in message:
        assert "cannot tell what this file holds" in str(err.value)


@pytest.mark.parametrize("sep", [";", "\t"])
def test_semicolon_and_tab_files_open_as_the_comma_file(tmp_path: Path, sep: str) -> None:
    """Excel's European ';' CSV and tab-separated text read as commas do (ADR 159)."""
    comma = data.write_csv(tmp_path / "l.csv", data.likert(2, 2))
    other = tmp_path / "other.csv"
    other.write_bytes(b"\xef\xbb\xbf" + comma.read_text(encoding="utf-8").replace(",", sep)
                      .replace("\n", "\r\n").encode())
    assert open_csv(other).load() == open_csv(comma).load()


def test_grouping_columns_are_kept(tmp_path: Path) -> None:
    ds = open_csv(data.write_csv(tmp_path / "l.csv", data.likert(2, 2)))
    row = ds.load()[0]
    assert row["category"] in data.CATEGORIES and row["edit_type"] in data.EDIT_TYPES
    assert "grouping columns: category, edit_type" in ds.description


def test_providers_register_once_and_a_failing_one_is_reported() -> None:
    def good(project):  # type: ignore[no-untyped-def]
        return [DataSet("mine", "votes", "mine:1",
                        lambda p: [{"a": "x", "b": "y", "winner": "a"}])]

    def broken(project):  # type: ignore[no-untyped-def]
        raise RuntimeError("database on fire")

    sources.register_provider(good)
    sources.register_provider(good)
    sources.register_provider(broken)
    try:
        found, errors = project_datasets(object())  # the built-in providers fail on it too
        assert [d.key for d in found].count("mine:1") == 1
        assert "broken: database on fire" in errors
    finally:
        sources.unregister_provider(good)
        sources.unregister_provider(broken)
    assert project_datasets(None) == ([], [])
    with pytest.raises(ValueError, match="unknown data set kind"):
        DataSet("x", "opinions", "k", lambda p: [])


def test_rating_sessions_and_metrics_become_data_sets(tmp_path: Path) -> None:
    project = data.build_project(tmp_path / "p.winnow")
    try:
        assert project_datasets(project) == ([], [])
        data.rated_session(project, tmp_path / "lk", "likert",
                           lambda t, n: {"valid": True, "IF": 4 + (n == 1 and t.position % 2),
                                         "IC": 3, "VQ": 2})
        data.rated_session(project, tmp_path / "sbs", "side_by_side",
                           lambda t, n: {"winner": "left"})
        models = data.PROJECT_MODELS
        data.save_metric(project, "colour_shift",
                         {(f"s{k:03d}", m): float(k + i) for k in range(4)
                          for i, m in enumerate(models)})
        data.save_metric(project, "judge_overall", {
            (f"s{k:03d}", m): {"value": 5.0, "details": {"judges": {
                "j1": {"score": 5.0 + i}, "j2": {"score": 4.0 + i}}}}
            for k in range(4) for i, m in enumerate(models)})
        found, errors = project_datasets(project)
        assert errors == []
        by_name = {d.name: d for d in found}
        likert = by_name["Session: likert"]
        assert likert.kind == "likert" and likert.source == "Rating session"
        rows = likert.load(project)
        assert {r["criterion"] for r in rows} == {"IF", "IC", "VQ"}
        assert {r["rater"] for r in rows} == {"Rater 1", "Rater 2"}
        assert {r["split"] for r in rows} == {"text-to-image", "image-to-image"}
        votes = by_name["Session: side_by_side"].load(project)
        assert votes[0]["criterion"] == "preference" and votes[0]["winner"] == "a"
        colour = next(d for d in found if d.key.startswith("metric:colour_shift"))
        assert colour.kind == "scores" and colour.higher_is_better is False
        assert len(colour.load(project)) == 12
        judges = next(d for d in found if d.key.endswith(":judges"))
        jrows = judges.load(project)
        assert {r["judge"] for r in jrows} == {"j1", "j2"} and len(jrows) == 24
    finally:
        project.close()
