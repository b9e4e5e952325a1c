"""Pairwise vote tables (ADR 023): a winner per row or vote counts, CSV and parquet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from battle_files import cli

from core import stats
from core.stats.battles import BattleOptions
from core.stats.csvcolumns import CsvFormatError
from core.stats.votefiles import read_vote_file

# -- pairwise tables -------------------------------------------------------------------------


def test_pairwise_csv_with_winner_and_extra_columns(write_csv) -> None:
    path = write_csv(
        "arena.csv",
        ["question_id", "Model_A", "model_b", "winner", "judge", "anony", "tstamp", "language"],
        [
            ["q1", "x", "y", "model_a", "u", "True", "3.5", "en"],
            ["q2", "y", "x", "tie (bothbad)", "u", "false", "1.25", "en"],
            ["q1", "x", "y", "model_b", "u", "true", "", "en"],
        ],
    )
    vf = read_vote_file(path, options=BattleOptions(anonymous_only=True))
    assert vf.source == "CSV table" and len(vf.votes) == 2
    assert vf.left_out == {"not_anonymous": 1}
    assert vf.duplicates.count == 1 and vf.duplicates.conflicting == 1
    assert vf.duplicates.example.startswith("arena.csv row 4 repeats row 2")
    assert vf.ordered_by == "file"  # one battle has no tstamp


def test_pairwise_tstamp_orders_online_elo(write_csv) -> None:
    path = write_csv(
        "arena.csv",
        ["model_a", "model_b", "winner", "tstamp"],
        [["x", "y", "model_a", "30"], ["x", "y", "model_b", "10"], ["y", "x", "tie", "20"]],
    )
    vf = read_vote_file(path)
    assert vf.ordered_by == "tstamp" and vf.order.tolist() == [1, 2, 0]


def test_counts_table_with_aliases_sums_repeated_pairs(capsys, write_csv) -> None:
    path = write_csv(
        "prefs.csv",
        ["id", "model_a", "model_b", "winner_model_a", "winner_model_b", "winner_tie"],
        [
            [1, "x", "y", 1, 0, 0],
            [2, "x", "y", 0, 0, 1],
            [3, "y", "x", 0, 1, 0],
            [4, "y", "z", "1.0", 0, 0],
        ],
    )
    vf = read_vote_file(path)
    assert vf.source == "CSV counts" and vf.records == 4 and len(vf.votes) == 4
    assert vf.duplicates is None and vf.order is None
    w = stats.win_matrix(vf.votes.a, vf.votes.b, vf.votes.outcome, 3)
    np.testing.assert_array_equal(w, [[0, 2.5, 0], [0.5, 0, 1], [0, 0, 0]])
    code, _, err = cli(capsys, "elo", str(path), "--online")
    assert code == 2 and "no battle order" in err


def test_counts_bothbad_column_follows_the_option(write_csv) -> None:
    path = write_csv(
        "c.csv",
        ["a", "b", "wins_a", "wins_b", "ties", "bothbad"],
        [["x", "y", 3, 1, 0, 2], ["y", "z", 2, 2, 1, 0]],
    )
    assert len(read_vote_file(path).votes) == 11
    vf = read_vote_file(path, options=BattleOptions(bothbad="drop"))
    assert len(vf.votes) == 9 and vf.left_out == {"bothbad": 2}


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "y", "2.5", "1"],
            "c.csv row 2, column 'wins_a': expected a whole number of votes, got '2.5'",
        ),
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "y", "-1", "1"],
            "c.csv row 2, column 'wins_a': expected a number >= 0, got '-1'",
        ),
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "y", "nan", "1"],
            "c.csv row 2, column 'wins_a': expected a finite number, got 'nan'",
        ),
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "y", "0", "0"],
            "c.csv: no votes (every count is 0)",
        ),
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "", "1", "1"],
            "c.csv row 2, column 'model_b': empty value",
        ),
        (
            ["model_a", "model_b", "wins_a", "wins_b"],
            ["x", "x", "1", "1"],
            "c.csv row 2, column 'model_b': the same model as column 'model_a' ('x')",
        ),
        (
            ["model_a", "model_b", "winner", "wins_a"],
            ["x", "y", "tie", "1"],
            "c.csv: has both a 'winner' column and vote counts ('wins_a'); keep one of them",
        ),
        (
            ["model_a", "model_b", "winner"],
            ["x", "y", "left"],
            "c.csv row 2, column 'winner': expected one of model_a, model_b, tie or tie (bothbad), "
            "got 'left'",
        ),
        (
            ["model_a", "model_b", "winner", "anony"],
            ["x", "y", "tie", "maybe"],
            "c.csv row 2, column 'anony': expected true or false, got 'maybe'",
        ),
        (
            ["model_a", "model_b", "winner", "tstamp"],
            ["x", "y", "tie", "noon"],
            "c.csv row 2, column 'tstamp': expected a time in seconds, got 'noon'",
        ),
        (
            ["model_a", "model_b", "winner", "tstamp"],
            ["x", "y", "tie", "inf"],
            "c.csv row 2, column 'tstamp': expected a time in seconds, got 'inf'",
        ),
    ],
)
def test_bad_table_rows_are_named(write_csv, header, row, message) -> None:
    path = write_csv("c.csv", header, [row])
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path, "pairwise")
    assert str(err.value) == message


def test_a_table_without_the_columns_says_what_it_expected(write_csv) -> None:
    path = write_csv("c.csv", ["model_a", "model_b", "score"], [["x", "y", "1"]])
    with pytest.raises(
        CsvFormatError,
        match=r"c\.csv: not a pairwise vote table \(header has: "
        r"model_a, model_b, score\); expected columns",
    ):
        read_vote_file(path, "pairwise")


def test_parquet_tables_types_nulls_and_rows(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "arena.parquet"
    pq.write_table(
        pa.table(
            {
                "question_id": ["q1", "q2", "q1"],
                "model_a": ["x", "y", "x"],
                "model_b": ["y", "z", "y"],
                "winner": ["model_a", "tie", "model_a"],
                "anony": [True, False, True],
                "tstamp": [2.0, 1.0, 3.0],
                "turn": [1, 1, 1],
            }
        ),
        path,
    )
    vf = read_vote_file(path, options=BattleOptions(anonymous_only=True))
    assert vf.source == "parquet table" and len(vf.votes) == 2
    assert (
        vf.duplicates.example == "arena.parquet row 3 repeats row 1 (same question_id, "
        "models, judge and turn)"
    )
    nulls = tmp_path / "nulls.parquet"
    pq.write_table(
        pa.table({"model_a": ["x", None], "model_b": ["y", "x"], "winner": ["tie", "tie"]}), nulls
    )
    with pytest.raises(
        CsvFormatError,
        match=r"^nulls\.parquet row 2, column 'model_a': empty "
        r"value$",
    ):
        read_vote_file(nulls)
    nested = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"model_a": [["x"]], "model_b": ["y"], "winner": ["tie"]}), nested)
    with pytest.raises(CsvFormatError, match=r"column 'model_a' holds list<.*string>, not text"):
        read_vote_file(nested)
    counts = tmp_path / "counts.parquet"
    pq.write_table(
        pa.table(
            {
                "A": ["x"],
                "B": ["y"],
                "wins_a": [3.0],
                "wins_b": [1],
                "ties": pa.array([None], pa.int64()),
            }
        ),
        counts,
    )
    with pytest.raises(
        CsvFormatError,
        match=r"counts\.parquet row 1, column 'ties': expected "
        r"a number, got ''",
    ):
        read_vote_file(counts)


def test_a_damaged_parquet_file_is_a_clear_error(capsys, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "cut.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 100)
    code, _, err = cli(capsys, "bt", str(path))
    assert code == 2 and "cut.parquet: not a readable parquet file" in err


def test_missing_pyarrow_names_the_extra(capsys, tmp_path: Path, monkeypatch) -> None:
    import sys

    path = tmp_path / "v.parquet"
    path.write_bytes(b"PAR1....PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, _, err = cli(capsys, "elo", str(path))
    assert code == 2 and "Reading parquet vote tables needs the optional 'parquet' part" in err
    assert "[parquet]" in err and "Traceback" not in err


def test_models_left_without_a_vote_are_named(capsys, write_csv) -> None:
    """A table row of zero counts (or battles the options leave out) can leave a model
    with no vote: it has no score, and the command and Analyze's description say so,
    naming it — before, it vanished from the JSON without a word."""
    from core.analysis.datafiles import describe

    path = write_csv("t.csv", ["model_a", "model_b", "wins_a", "wins_b"],
                     [["x", "y", 0, 0], ["y", "z", 3, 1]])
    vf = read_vote_file(path)
    assert vf.votes.models == ("y", "z") and vf.unvoted == ("x",)
    assert "1 model without a vote ('x')" in describe(vf, path)
    code, out, err = cli(capsys, "bt", str(path))
    assert code == 0 and set(out["scores"]) == {"y", "z"}
    assert "1 model without a vote ('x'): no score" in err
    battles = write_csv("b.csv", ["model_a", "model_b", "winner"],
                        [["x", "y", "tie (bothbad)"], ["y", "z", "model_a"]])
    code, out, err = cli(capsys, "elo", str(battles), "--bothbad", "drop", "--bootstrap", "0")
    assert code == 0 and set(out["ratings"]) == {"y", "z"} and "('x')" in err
    code, out, err = cli(capsys, "bt", str(battles))
    assert code == 0 and "without a vote" not in err
