"""CSV reading: every malformed input gets a message naming file, row and column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.stats import csvcolumns, tables
from core.stats.tables import CsvFormatError


@pytest.fixture(autouse=True, params=["stdlib", "pyarrow", "split"])
def parser(request, monkeypatch) -> str:
    """Every test runs with each parser: the same values and the same messages."""
    monkeypatch.setattr(csvcolumns, "FAST_MIN_BYTES", 0 if request.param == "pyarrow" else 10**12)
    monkeypatch.setattr(csvcolumns, "SPLIT_MIN_BYTES", 0 if request.param == "split" else 10**12)
    return request.param


def test_votes_round_trip(data_dir: Path) -> None:
    v = tables.read_votes(data_dir / "agresti_1987_votes.csv")
    assert len(v) == 273 and len(v.models) == 7
    assert v.models[0] == "Baltimore"  # sorted


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [["x", "y", "a"], ["x", "y", "left"]],
            "v.csv row 3, column 'winner': expected one of a, b, tie, got 'left'",
        ),
        ([["x", "", "a"]], "v.csv row 2, column 'b': empty value"),
        ([["x", "x", "a"]], "v.csv row 2, column 'b': the same model as column 'a'"),
        ([["x", "y"]], "v.csv row 2: expected 3 fields, found 2"),
        ([["x", "y", "a", "extra"]], "v.csv row 2: expected 3 fields, found 4"),
        ([], "v.csv: no votes"),
    ],
)
def test_vote_errors(write_csv, rows, message: str) -> None:
    path = write_csv("v.csv", ["a", "b", "winner"], rows)
    with pytest.raises(CsvFormatError) as exc:
        tables.read_votes(path)
    assert message in str(exc.value)


def test_header_problems(tmp_path: Path, write_csv) -> None:
    with pytest.raises(CsvFormatError, match=r"missing column 'winner' \(header has: a, b\)"):
        tables.read_votes(write_csv("v.csv", ["a", "b"], [["x", "y"]]))
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(CsvFormatError, match="empty.csv: the file is empty"):
        tables.read_votes(empty)
    with pytest.raises(CsvFormatError, match="appears twice"):
        tables.read_votes(write_csv("d.csv", ["a", "b", "winner", "a"], [["x", "y", "a", "z"]]))


def test_bom_case_insensitive_header_extra_columns_and_blank_lines(tmp_path: Path) -> None:
    p = tmp_path / "v.csv"
    p.write_bytes("\ufeffA, B ,Winner,criterion\r\nx,y,A,pref\r\n\r\ny,x,TIE,pref\r\n".encode())
    v = tables.read_votes(p)
    assert len(v) == 2 and list(v.outcome) == [0, 2]


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "latin.csv"
    p.write_bytes(b"a,b,winner\n\xe9t\xe9,y,a\n")
    with pytest.raises(CsvFormatError, match="latin.csv row 2: not UTF-8 text"):
        tables.read_votes(p)


def test_row_numbers_are_file_lines_with_quoted_newlines(tmp_path: Path) -> None:
    p = tmp_path / "s.csv"
    p.write_text('sample,model,score\n"multi\nline",A,1\ns2,B,high\n')
    with pytest.raises(
        CsvFormatError, match="s.csv row 4, column 'score': expected a number, got 'high'"
    ):
        tables.read_scores(p)


def test_scores_and_duplicates(write_csv) -> None:
    rec = tables.read_scores(
        write_csv("s.csv", ["sample", "model", "score"], [["s", "A", 1], ["s", "B", 2]])
    )
    assert rec.judge is None and rec.score == [1.0, 2.0]
    rec = tables.read_scores(
        write_csv("j.csv", ["sample", "model", "score", "judge"], [["s", "A", 1, "g"]])
    )
    assert rec.judge == ["g"]
    with pytest.raises(
        CsvFormatError, match="row 3: a score for sample 's', model 'A' already given in row 2"
    ):
        tables.read_scores(
            write_csv("s.csv", ["sample", "model", "score"], [["s", "A", 1], ["s", "A", 2]])
        )
    with pytest.raises(CsvFormatError, match="expected a finite number, got 'nan'"):
        tables.read_scores(write_csv("s.csv", ["sample", "model", "score"], [["s", "A", "nan"]]))


def test_rankings(write_csv) -> None:
    t = tables.read_rankings(
        write_csv(
            "r.csv", ["rater", "item", "model", "rank"], [["r", "i", "A", 1], ["r", "i", "B", 2]]
        )
    )
    np.testing.assert_array_equal(t.ranks, [[[1, 2]]])
    with pytest.raises(
        CsvFormatError, match="r.csv row 2, column 'rank': expected a positive number, got '0'"
    ):
        tables.read_rankings(
            write_csv("r.csv", ["rater", "item", "model", "rank"], [["r", "i", "A", 0]])
        )
    with pytest.raises(
        CsvFormatError, match="row 3: a rank by 'r' for 'A' on item 'i' already given in row 2"
    ):
        tables.read_rankings(
            write_csv(
                "r.csv",
                ["rater", "item", "model", "rank"],
                [["r", "i", "A", 1], ["r", "i", "A", 2]],
            )
        )


def test_ratings_levels(write_csv, data_dir: Path) -> None:
    rec = tables.read_ratings(data_dir / "krippendorff_2011.csv")
    assert len(rec.value) == 41
    path = write_csv("n.csv", ["rater", "unit", "value"], [["a", "u", "cat"], ["b", "u", "dog"]])
    assert tables.read_ratings(path, level="nominal").value == [0.0, 1.0]
    with pytest.raises(CsvFormatError, match="column 'value': expected a number, got 'cat'"):
        tables.read_ratings(path, level="interval")
    neg = write_csv("r.csv", ["rater", "unit", "value"], [["a", "u", "-1"]])
    with pytest.raises(CsvFormatError, match="expected a number >= 0"):
        tables.read_ratings(neg, level="ratio")


def test_likert_and_checklist(write_csv) -> None:
    header = ["rater", "unit", "model", "criterion", "value"]
    means = tables.read_likert(
        write_csv("l.csv", header, [["r", "u", "M", "IF", 4], ["s", "u", "M", "IF", 5]])
    )
    assert means.means[0, 0, 0] == 4.5
    with pytest.raises(CsvFormatError, match="column 'criterion': 'overall' is reserved"):
        tables.read_likert(write_csv("l.csv", header, [["r", "u", "M", "Overall", 4]]))
    qh = ["model", "category", "subtask", "case", "q1", "q2", "q3", "q4", "q5", "q6"]
    rec = tables.read_checklist(
        write_csv("c.csv", qh, [["M", "T2I", "s", "c", 1, 1, "yes", 0, "true", 0]])
    )
    np.testing.assert_array_equal(rec.answers, [[1, 1, 1, 0, 1, 0]])
    with pytest.raises(CsvFormatError, match="c.csv row 2, column 'q4': expected 0 or 1, got '2'"):
        tables.read_checklist(write_csv("c.csv", qh, [["M", "T2I", "s", "c", 1, 1, 1, 2, 1, 0]]))
    with pytest.raises(CsvFormatError, match="missing columns 'q5', 'q6'"):
        tables.read_checklist(write_csv("c.csv", qh[:-2], [["M", "T2I", "s", "c", 1, 1, 1, 1]]))
