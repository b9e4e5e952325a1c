"""Arena vote formats: detection, battle JSON, winners, duplicates, options, win rate."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from battle_files import BASIC, battle, cli, write_json, write_jsonl

from core.stats.battles import BattleOptions, finalize, read_battle_json
from core.stats.csvcolumns import CsvFormatError
from core.stats.votefiles import detect_format, read_vote_file, resolve_format, vote_win_rates

# -- detection -----------------------------------------------------------------------------


def test_detection_by_content_then_extension(tmp_path: Path, write_csv) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    assert detect_format(write_json(tmp_path / "a.json", BASIC)) == ("battles", "json")
    assert detect_format(write_json(tmp_path / "a.txt", BASIC)) == ("battles", "json")
    assert detect_format(write_jsonl(tmp_path / "a.jsonl", BASIC)) == ("battles", "jsonl")
    assert detect_format(write_jsonl(tmp_path / "a.json", BASIC)) == ("battles", "jsonl")
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf  \n" + json.dumps(BASIC).encode())
    assert detect_format(bom) == ("battles", "json")
    table = pa.table({"model_a": ["x"], "model_b": ["y"], "winner": ["tie"]})
    pq.write_table(table, tmp_path / "votes.dat")
    assert detect_format(tmp_path / "votes.dat") == ("pairwise", "parquet")
    assert detect_format(write_csv("p.csv", ["Model_A", "model_b", "winner"], [])) == (
        "pairwise",
        "csv",
    )
    assert detect_format(write_csv("c.csv", ["a", "b", "wins_a", "wins_b"], [])) == (
        "pairwise",
        "csv",
    )
    assert detect_format(write_csv("w.csv", ["a", "b", "winner"], [])) == ("csv", "csv")
    assert detect_format(write_csv("s.csv", ["sample", "model", "score"], [])) == ("csv", "csv")
    for name, text in (("x.parquet", "a,b,winner\n"), ("x.json", "a,b,winner\n"), ("e.jsonl", "")):
        (tmp_path / name).write_text(text)
        with pytest.raises(CsvFormatError, match=name.replace(".", r"\.")):
            detect_format(tmp_path / name)


def test_forced_format_reads_the_container_from_content(tmp_path: Path, write_csv) -> None:
    path = write_jsonl(tmp_path / "votes.log", BASIC)
    assert resolve_format(path, "battles") == ("battles", "jsonl")
    assert resolve_format(path, "pairwise") == ("pairwise", "csv")
    with pytest.raises(ValueError, match="unknown vote format"):
        resolve_format(path, "xml")


def test_forcing_the_wrong_format_is_a_clear_error(capsys, tmp_path: Path, write_csv) -> None:
    votes = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"]])
    code, _, err = cli(capsys, "bt", str(votes), "--format", "battles")
    assert code == 2 and "v.csv line 1: not valid JSON" in err and "Traceback" not in err
    battles = write_json(tmp_path / "b.json", BASIC)
    code, _, err = cli(capsys, "bt", str(battles), "--format", "csv")
    assert code == 2 and "b.json" in err and "missing columns 'a', 'b', 'winner'" in err


# -- battle JSON ---------------------------------------------------------------------------


def test_json_array_and_json_lines_read_the_same_votes(tmp_path: Path) -> None:
    a = read_vote_file(write_json(tmp_path / "a.json", BASIC))
    b = read_vote_file(write_jsonl(tmp_path / "b.jsonl", BASIC))
    assert a.source == "JSON array" and b.source == "JSON Lines"
    for x, y in (
        (a.votes.a, b.votes.a),
        (a.votes.b, b.votes.b),
        (a.votes.outcome, b.votes.outcome),
    ):
        np.testing.assert_array_equal(x, y)
    assert a.votes.models == ("x", "y", "z")
    # model_a wins, model_b wins, tie, both-bad tie (as a tie), model_a wins
    assert a.votes.outcome.tolist() == [0, 1, 2, 2, 0]


def test_winner_words_case_and_winnow_spellings(tmp_path: Path) -> None:
    records = [
        battle("x", "y", " Model_A "),
        battle("x", "y", "B"),
        battle("x", "y", "TIE"),
        battle("x", "y", "Tie (BothBad)"),
    ]
    vf = read_vote_file(write_json(tmp_path / "w.json", records))
    assert vf.votes.outcome.tolist() == [0, 1, 2, 2]


def test_other_fields_and_conversations_are_ignored(tmp_path: Path) -> None:
    conv = [{"role": "user", "content": "a cat " * 50}, {"role": "assistant", "content": "ok"}]
    records = [
        battle(
            "x",
            "y",
            "model_a",
            conversation_a=conv,
            conversation_b=conv,
            language="English",
            turn=1,
            judge="arena_user_9",
            anony=True,
            tstamp=1707700514.3167,
            question_id="5e1f",
        )
    ]
    assert len(read_vote_file(write_json(tmp_path / "c.json", records)).votes) == 1


def test_bothbad_drop_and_anonymous_only(capsys, tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a", anony=True),
        battle("y", "x", "tie (bothbad)", anony=True),
        battle("x", "y", "model_b", anony=False),
        battle("x", "y", "tie", anony=True),
    ]
    path = write_json(tmp_path / "b.json", records)
    vf = read_vote_file(path, options=BattleOptions(bothbad="drop", anonymous_only=True))
    assert len(vf.votes) == 2 and vf.left_out == {"not_anonymous": 1, "bothbad": 1}
    code, out, err = cli(capsys, "winrate", str(path), "--bothbad", "drop", "--anonymous-only")
    assert code == 0 and out["left_out"] == {"not_anonymous": 1, "bothbad": 1}
    assert out["win_rate"] == {"x": 0.75, "y": 0.25}
    assert "4 records read (JSON array); left out 1 not anonymous, 1 tie (bothbad); 2 votes" in err


def test_anonymous_only_needs_anony_on_every_battle(capsys, tmp_path: Path, write_csv) -> None:
    records = [battle("x", "y", "model_a", anony=True), battle("x", "y", "model_b")]
    code, _, err = cli(
        capsys, "bt", str(write_json(tmp_path / "b.json", records)), "--anonymous-only"
    )
    assert code == 2 and "b.json record 2 (line 8), field 'anony': not given" in err
    votes = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"]])
    code, _, err = cli(capsys, "bt", str(votes), "--anonymous-only")
    assert code == 2 and "has no 'anony' column" in err


def test_everything_left_out_is_an_error(tmp_path: Path) -> None:
    records = [battle("x", "y", "tie (bothbad)")]
    with pytest.raises(CsvFormatError, match=r"no battles left to count \(left out: 1 tie"):
        read_vote_file(
            write_json(tmp_path / "b.json", records), options=BattleOptions(bothbad="drop")
        )


def test_a_model_only_in_dropped_battles_is_not_on_the_board(tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a"),
        battle("y", "x", "model_a"),
        battle("x", "ghost", "tie (bothbad)"),
    ]
    vf = read_vote_file(
        write_json(tmp_path / "b.json", records), options=BattleOptions(bothbad="drop")
    )
    assert vf.votes.models == ("x", "y")


def test_self_comparison_rejects_the_file_naming_the_record(capsys, tmp_path: Path) -> None:
    records = [battle("x", "y", "model_a"), battle(" x", "x ", "tie")]
    code, _, err = cli(capsys, "elo", str(write_jsonl(tmp_path / "b.jsonl", records)))
    assert code == 2
    assert "b.jsonl line 2, field 'model_b': the same model as field 'model_a' ('x')" in err


# -- duplicates ------------------------------------------------------------------------------


def test_duplicate_question_ids_are_reported_and_kept_or_dropped(capsys, tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a", question_id="q1", judge="u1", turn=1),
        battle("y", "z", "model_b", question_id="q2", judge="u1", turn=1),
        battle("x", "y", "model_b", question_id="q1", judge="u1", turn=1),  # conflicts
        battle("x", "y", "model_a", question_id="q1", judge="u1", turn=2),  # other turn
        battle("x", "z", "model_a", question_id="q1", judge="u1", turn=1),  # other pair
        battle("y", "z", "model_b", question_id="q2", judge="u1", turn=1),
    ]  # repeat
    path = write_json(tmp_path / "b.json", records, indent=None)
    code, out, err = cli(capsys, "bt", str(path))
    assert code == 0 and "left_out" not in out
    assert out["duplicates"] == {
        "count": 2,
        "conflicting": 1,
        "dropped": False,
        "example": "b.json record 3 (line 1) repeats record 1 (line 1) (same question_id, "
        "models, judge and turn)",
    }
    assert "warning: 2 battles repeat an earlier battle, 1 of them with another winner" in err
    assert "counted, as FastChat does" in err
    code, dropped, err = cli(capsys, "bt", str(path), "--duplicates", "drop")
    assert dropped["left_out"] == {"duplicates": 2} and dropped["duplicates"]["dropped"]
    vf = read_vote_file(path, options=BattleOptions(duplicates="drop"))
    assert len(vf.votes) == 4 and vf.votes.outcome.tolist() == [0, 1, 0, 0]


def test_a_dedicated_battle_id_wins_over_question_id(tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a", battle_id=7, question_id="q1"),
        battle("x", "z", "model_a", battle_id=8, question_id="q1"),
        battle("y", "z", "model_a", battle_id=7, question_id="q9"),
    ]
    vf = read_vote_file(write_jsonl(tmp_path / "b.jsonl", records))
    assert vf.duplicates.count == 1
    assert vf.duplicates.example == "b.jsonl line 3 repeats line 1 (same battle_id)"


def test_battles_without_ids_are_events_never_duplicates(tmp_path: Path) -> None:
    records = [battle("x", "y", "model_a")] * 3 + [battle("x", "y", "model_a", id=None)]
    vf = read_vote_file(write_json(tmp_path / "b.json", records))
    assert vf.duplicates is None and len(vf.votes) == 4


def test_records_without_an_id_among_records_with_one(tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a", question_id="q"),
        battle("x", "y", "model_a"),
        battle("x", "y", "model_a"),
        battle("x", "y", "model_a", question_id="q"),
    ]
    vf = read_vote_file(write_json(tmp_path / "b.json", records))
    assert vf.duplicates.count == 1 and "record 4" in vf.duplicates.example


# -- win rate ----------------------------------------------------------------------------------


def test_winrate_of_votes_is_the_share_of_battles_won(capsys, tmp_path: Path, write_csv) -> None:
    path = write_json(tmp_path / "b.json", BASIC)
    code, out, _ = cli(capsys, "winrate", str(path))
    vf = read_vote_file(path)
    points = {m: 0.0 for m in vf.votes.models}
    played = dict.fromkeys(vf.votes.models, 0)
    for b in BASIC:
        sa = {"model_a": 1.0, "model_b": 0.0}.get(b["winner"], 0.5)
        points[b["model_a"]] += sa
        points[b["model_b"]] += 1 - sa
        played[b["model_a"]] += 1
        played[b["model_b"]] += 1
    assert out["win_rate"] == pytest.approx({m: points[m] / played[m] for m in points})
    assert list(out["win_rate"]) == sorted(points, key=lambda m: -points[m] / played[m])
    votes = write_csv("v.csv", ["a", "b", "winner"], [["x", "y", "a"], ["y", "x", "tie"]])
    assert cli(capsys, "winrate", str(votes))[1]["win_rate"] == {"x": 0.75, "y": 0.25}
    code, _, err = cli(capsys, "winrate", str(votes), "--format", "csv")
    assert code == 2 and "missing columns 'sample', 'model', 'score'" in err
    scores = write_csv("s.csv", ["sample", "model", "score"], [["s", "x", 1], ["s", "y", 2]])
    assert cli(capsys, "winrate", str(scores))[1] == {"win_rate": {"y": 1.0, "x": 0.0}}


def test_vote_win_rates_tables(tmp_path: Path) -> None:
    res = vote_win_rates(read_vote_file(write_json(tmp_path / "b.json", BASIC)).votes)
    assert res.n_comparisons.tolist() == [4, 3, 3]
    np.testing.assert_array_equal(res.pair_counts, res.pair_counts.T)


def test_read_battle_json_keeps_what_finalize_needs(tmp_path: Path) -> None:
    records = [
        battle("x", "y", "model_a", anony=True, tstamp=5),
        battle("y", "x", "tie", anony=False, tstamp=1),
    ]
    raw = read_battle_json(write_json(tmp_path / "b.json", records))
    assert raw.anony.tolist() == [1, 0] and raw.tstamp.tolist() == [5.0, 1.0]
    assert raw.keys is None and raw.where(1) == "b.json record 2 (line 9)"
    vf = finalize(raw)
    assert vf.ordered_by == "tstamp" and vf.order.tolist() == [1, 0]
