"""Merge (idempotent; foreign and conflicting files refused), summaries, results CSV."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from rating_helpers import MODELS, build_project, make_session, simple_answer

from app.cli import run_cli
from core.rating.merge import MergeError, merge_file, merge_files
from core.rating.results import export_results, rater_summaries, result_rows
from core.rating.session_file import RatingSession
from core.stats import tables


def _rate(path: Path, name: str, answer=simple_answer, time_ms: int = 1000,  # type: ignore[no-untyped-def]
          limit: int | None = None) -> RatingSession:
    s = RatingSession.open(path)
    s.set_rater(name)
    n = 0
    while (t := s.next_task()) is not None and (limit is None or n < limit):
        s.submit(t.task_id, answer(t), time_ms=time_ms)
        n += 1
    s.close()
    return s


def _counts(project) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    c = project.conn
    return (c.execute("SELECT count(*) FROM rating_judgments").fetchone()[0],
            c.execute("SELECT count(*) FROM rating_merges").fetchone()[0],
            c.execute("SELECT count(*) FROM audit_log").fetchone()[0])


def test_merging_the_same_file_twice_changes_nothing(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "side_by_side")
    _rate(files[0], "Ada", limit=5)
    first = merge_file(rproject, files[0])
    assert (first.added, first.already, first.rater) == (5, 0, "Ada")
    before = _counts(rproject)
    again = merge_file(rproject, files[0])
    assert (again.added, again.already) == (0, 5)
    assert _counts(rproject) == before
    # the rater continues; merging the newer file adds only the new judgments
    s = RatingSession.open(files[0])
    t = s.next_task()
    s.submit(t.task_id, {"winner": "right"}, time_ms=10)
    last = s.last_judgment()
    s.submit(t.task_id, {"winner": "tie"}, time_ms=10, supersedes=last.uid)
    s.close()
    more = merge_file(rproject, files[0])
    assert (more.added, more.already) == (2, 5)
    summary = {r.slot: r for r in rater_summaries(rproject, "side_by_side")}
    assert summary["R1"].completed == 6 and summary["R1"].changed == 1
    assert summary["R2"].rater is None and summary["R2"].completed == 0


def test_foreign_files_are_refused_and_nothing_is_written(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_session(rproject, tmp_path / "mine", "likert")
    other = build_project(tmp_path / "other.winnow")
    foreign = make_session(other, tmp_path / "theirs", "likert")
    _rate(foreign[0], "Mallory", limit=2)
    other.close()
    before = _counts(rproject)
    with pytest.raises(MergeError, match="not created in this project"):
        merge_file(rproject, foreign[0])
    not_session = tmp_path / "junk.winnow-session"
    not_session.write_text("nope")
    results, errors = merge_files(rproject, [foreign[0], not_session])
    assert results == [] and len(errors) == 2
    assert "foreign" in errors[0] and "junk.winnow-session" in errors[1]
    assert _counts(rproject) == before



@pytest.mark.parametrize("same_file", [False, True])
def test_a_merge_in_another_job_meanwhile_is_seen_before_writing(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                 monkeypatch,
                                                                 same_file: bool) -> None:
    # the checks read the project before the write began: while one job merged Bob's copy
    # of a rater file, another merged Ada's, both were "first", and two people's answers
    # to one slot counted (the same file twice: a raw "UNIQUE constraint failed")
    files = make_session(rproject, tmp_path / "out", "side_by_side")
    copy = tmp_path / "copy.winnow-session"
    shutil.copy(files[0], copy)
    _rate(files[0], "Ada", limit=3)
    _rate(copy, "Bob", limit=3)
    mine, other = rproject.worker_view(), rproject.worker_view()
    write = mine.transaction

    def after_the_other_job(*args, **kw):  # type: ignore[no-untyped-def]
        merge_file(other, files[0] if same_file else copy)  # commits first
        return write(*args, **kw)

    monkeypatch.setattr(mine, "transaction", after_the_other_job)
    try:
        if same_file:
            result = merge_file(mine, files[0])
            assert (result.added, result.already) == (0, 3)
        else:
            with pytest.raises(MergeError, match="another copy.*'Bob'.*'Ada'"):
                merge_file(mine, files[0])
    finally:
        mine.close()
        other.close()
    judgments = rproject.conn.execute("SELECT DISTINCT rater FROM rating_judgments").fetchall()
    assert judgments == [("Ada" if same_file else "Bob",)]
    assert _counts(rproject)[0] == 3


def test_tampered_and_conflicting_copies_are_refused(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "side_by_side")
    copy = tmp_path / "copy.winnow-session"
    shutil.copy(files[0], copy)
    _rate(files[0], "Ada", limit=3)
    _rate(copy, "Bob", limit=3)
    merge_file(rproject, files[0])
    before = _counts(rproject)
    with pytest.raises(MergeError, match="another copy.*'Ada'.*'Bob'"):
        merge_file(rproject, copy)
    assert _counts(rproject) == before
    # a judgment edited behind the app's back (triggers dropped): its MAC fails
    conn = sqlite3.connect(files[0])
    conn.execute("DROP TRIGGER judgments_no_update")
    conn.execute("UPDATE judgments SET answer = '{\"winner\": \"right\"}' WHERE seq = 1")
    conn.commit()
    conn.close()
    with pytest.raises(MergeError, match="edited outside the rater view.*judgment 1 was "
                                         "changed"):
        merge_file(rproject, files[0])
    # a task list that is not what the project wrote
    conn = sqlite3.connect(files[1])
    conn.execute("DROP TRIGGER tasks_no_update")
    conn.execute("UPDATE tasks SET options = '[[\"oX\", \"x\"], [\"oY\", \"y\"]]' "
                 "WHERE position = 0")
    conn.commit()
    conn.close()
    with pytest.raises(MergeError, match="tasks differ"):
        merge_file(rproject, files[1])
    assert _counts(rproject) == before


def test_gold_accuracy_time_flags_in_summary(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "side_by_side", gold_rate=0.25,
                         tasks_per_rater=12)
    gold = dict(rproject.conn.execute("SELECT task_id, gold FROM rating_tasks "
                                      "WHERE gold IS NOT NULL"))
    # R1 always picks the known-good side of gold tasks, R2 always the wrong one
    def right(t):  # type: ignore[no-untyped-def]
        g = gold.get(t.task_id)
        return {"winner": json.loads(g)["winner"]} if g else {"winner": "left"}

    def wrong(t):  # type: ignore[no-untyped-def]
        g = gold.get(t.task_id)
        flip = {"left": "right", "right": "left"}
        return {"winner": flip[json.loads(g)["winner"]]} if g else {"winner": "left"}

    _rate(files[0], "Good", right, time_ms=2000)
    _rate(files[1], "Sloppy", wrong, time_ms=500)
    merge_files(rproject, files)
    rows = {r.slot: r for r in rater_summaries(rproject, "side_by_side")}
    assert rows["R1"].gold_tasks == rows["R1"].gold_answered == 4
    assert rows["R1"].gold_accuracy == 1.0 and rows["R2"].gold_accuracy == 0.0
    assert rows["R1"].median_time_s == 2.0 and rows["R2"].median_time_s == 0.5
    assert rows["R1"].completed == rows["R1"].tasks == 16
    # gold tasks never reach the results
    header, data = result_rows(rproject, "side_by_side")
    assert header == ["a", "b", "winner", "rater", "item", "criterion"] and len(data) == 24
    assert {r[3] for r in data} == {"Good", "Sloppy"} and {r[5] for r in data} == {"preference"}


def _merged(project, tmp_path: Path, protocol: str, **kw) -> list[Path]:  # type: ignore[no-untyped-def]
    files = make_session(project, tmp_path / protocol, protocol, overlap=2, **kw)
    _rate(files[0], "Ada")
    _rate(files[1], "Bob")
    merge_files(project, files)
    return files


def test_ranking_results_restore_model_names_and_feed_kemeny(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _merged(rproject, tmp_path, "ranking")
    out = tmp_path / "rankings.csv"
    n = export_results(rproject, "ranking", out)
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    assert n == len(rows) == 2 * 6 * len(MODELS)
    assert list(rows[0]) == ["rater", "item", "model", "rank"]
    assert {r["model"] for r in rows} == set(MODELS) and {r["rater"] for r in rows} == {"Ada",
                                                                                       "Bob"}
    # simple_answer ranks options in display order: check one task against the file
    s = RatingSession.open(tmp_path / "ranking" / "ranking-R1.winnow-session")
    task = s.tasks[0]
    blind = dict(rproject.conn.execute("SELECT token, model FROM rating_blinding"))
    sample = rproject.conn.execute("SELECT sample_id FROM rating_tasks WHERE task_id = ?",
                                   (task.task_id,)).fetchone()[0]
    s.close()
    mine = {r["model"]: int(r["rank"]) for r in rows if r["rater"] == "Ada" and
            r["item"] == sample}
    assert mine == {blind[tok]: k + 1 for k, (tok, _) in enumerate(task.options)}
    table = tables.read_rankings(out)
    assert table.ranks.shape == (2, 6, len(MODELS))
    assert run_cli(["stats", "kemeny", str(out)]) == 0


@pytest.mark.parametrize(("protocol", "command", "reader"), [
    ("likert", "success", tables.read_likert),
    ("checklist", "idea", tables.read_checklist),
    ("side_by_side", "bt", tables.read_votes),
])
def test_other_protocols_export_what_winnow_stats_reads(rproject, tmp_path: Path, protocol,  # type: ignore[no-untyped-def]
                                                        command, reader, capsys) -> None:
    _merged(rproject, tmp_path, protocol)
    out = tmp_path / f"{protocol}.csv"
    n = export_results(rproject, protocol, out)
    reader(out)  # parses without error
    header = out.read_text(encoding="utf-8").splitlines()[0].split(",")
    expected = {"likert": ["rater", "unit", "model", "criterion", "value"],
                "checklist": ["model", "category", "subtask", "case", *(f"q{k}" for k in
                                                                        range(1, 7))],
                "side_by_side": ["a", "b", "winner", "rater", "item", "criterion"]}[protocol]
    assert header == expected
    capsys.readouterr()
    assert run_cli(["stats", command, str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    if protocol == "likert":
        assert n == 2 * 6 * len(MODELS) * 3
        # IF 4, IC 3, VQ 2 from every rater: success at tau 4 only on IF
        assert all(v["IF"] == 1.0 and v["VQ"] == 0.0 and v["overall"] == 0.0
                   for v in result["success"].values())
    elif protocol == "side_by_side":
        assert set(result["scores"]) == set(MODELS)
        assert sum(result["scores"].values()) == pytest.approx(100)
    else:
        assert set(result["scores"]) == set(MODELS)


def test_side_by_side_with_several_questions_needs_a_criterion(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _merged(rproject, tmp_path, "side_by_side", criteria=("preference", "alignment"))
    with pytest.raises(ValueError, match="choose one with --criterion"):
        result_rows(rproject, "side_by_side")
    _, pref = result_rows(rproject, "side_by_side", "preference")
    _, align = result_rows(rproject, "side_by_side", "alignment")
    assert len(pref) == len(align) == 2 * 6 * 6
    with pytest.raises(ValueError, match="no criterion"):
        result_rows(rproject, "side_by_side", "coherence")


def test_flagged_tasks_give_no_rows_and_are_counted(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = make_session(rproject, tmp_path / "out", "likert", raters=1)
    s = RatingSession.open(files[0])
    s.set_rater("Ada")
    first = s.next_task()
    s.submit(first.task_id, {}, time_ms=5, flag="invalid", reason="not feasible")
    while (t := s.next_task()) is not None:
        s.submit(t.task_id, simple_answer(t), time_ms=5)
    s.close()
    merge_file(rproject, files[0])
    (summary,) = rater_summaries(rproject, "likert")
    assert summary.flags == 1
    _, rows = result_rows(rproject, "likert")
    assert len(rows) == (len(s.tasks) - 1) * 3


def test_export_without_judgments_is_a_clear_error(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_session(rproject, tmp_path / "out", "ranking")
    with pytest.raises(ValueError, match="merge the raters' files first"):
        export_results(rproject, "ranking", tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(ValueError, match="no rating session named 'nope'"):
        export_results(rproject, "nope", tmp_path / "x.csv")


def test_side_by_side_votes_carry_rater_item_criterion_and_stats_ignore_them(  # type: ignore[no-untyped-def]
        rproject, tmp_path: Path, capsys) -> None:
    files = make_session(rproject, tmp_path / "sbs", "side_by_side", overlap=2,
                         criteria=("preference", "alignment"))

    def by_position(t):  # type: ignore[no-untyped-def]
        return {"winner": ("left", "right", "tie")[t.position % 3]}

    _rate(files[0], "Ada", by_position)
    _rate(files[1], "Bob", simple_answer)
    merge_files(rproject, files)
    out = tmp_path / "alignment.csv"
    n = export_results(rproject, "side_by_side", out, criterion="alignment")
    rows = list(csv.DictReader(out.read_text(encoding="utf-8").splitlines()))
    assert n == len(rows) == 2 * 6 * 6
    assert list(rows[0]) == ["a", "b", "winner", "rater", "item", "criterion"]
    # each row is one judgment: the rater's answer on that sample, models unblinded
    blind = dict(rproject.conn.execute("SELECT token, model FROM rating_blinding"))
    expected = []
    for f, name, answer in ((files[0], "Ada", by_position), (files[1], "Bob", simple_answer)):
        s = RatingSession.open(f)
        for t in s.tasks:
            if t.criterion != "alignment":
                continue
            sample = rproject.conn.execute("SELECT sample_id FROM rating_tasks WHERE "
                                           "task_id = ?", (t.task_id,)).fetchone()[0]
            winner = {"left": "a", "right": "b", "tie": "tie"}[answer(t)["winner"]]
            expected.append((blind[t.options[0][0]], blind[t.options[1][0]], winner, name,
                             sample, "alignment"))
        s.close()
    assert sorted(tuple(r.values()) for r in rows) == sorted(expected)
    # `winnow stats bt/elo` give the same answer as on the bare a,b,winner columns
    bare = tmp_path / "bare.csv"
    with bare.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "winner"])
        w.writerows([r["a"], r["b"], r["winner"]] for r in rows)
    for argv in (["bt"], ["elo", "--bootstrap", "200", "--seed", "3"]):
        outputs = []
        for path in (out, bare):
            capsys.readouterr()
            assert run_cli(["stats", *argv, str(path)]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        assert outputs[0] == outputs[1] and set(outputs[0][
            "scores" if argv[0] == "bt" else "ratings"]) == set(MODELS)
