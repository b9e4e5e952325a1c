"""Analyze → Open Data File… on arena vote data: battle JSON, JSON Lines, vote tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from core import stats  # noqa: E402
from core.stats.votefiles import read_vote_file  # noqa: E402

MODELS = ("flux-pro", "dalle-3", "sd3-medium", "sdxl-turbo")


def battles(n: int = 400, seed: int = 2) -> list[dict]:
    rng = np.random.default_rng(seed)
    strength = dict(zip(MODELS, (1.0, 0.5, 0.0, -0.8), strict=True))
    out = []
    for i in range(n):
        a, b = rng.choice(len(MODELS), 2, replace=False)
        p = 1 / (1 + np.exp(strength[MODELS[b]] - strength[MODELS[a]]))
        u = rng.random()
        winner = (
            "tie (bothbad)"
            if u < 0.05
            else "tie"
            if u < 0.12
            else ("model_a" if rng.random() < p else "model_b")
        )
        out.append(
            {
                "question_id": f"q{i}",
                "model_a": MODELS[a],
                "model_b": MODELS[b],
                "winner": winner,
                "judge": "arena_user_1",
                "anony": True,
                "tstamp": 1.7e9 + i,
            }
        )
    return out


def _choose(monkeypatch, path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))


def _open_with_defaults(qtbot, page) -> None:  # type: ignore[no-untyped-def]
    """The arena options dialog came up for the chosen file: Open with FastChat's defaults."""
    dialog = page.arena_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.bothbad.currentData() == "tie" and not dialog.anonymous.isChecked()
    dialog.accept()


def test_open_battle_json_shows_the_same_board_as_winnow_stats(
    qtbot, page, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    data = battles()
    data.append(dict(data[3]))  # a battle logged twice
    path = tmp_path / "clean_battle_20240220.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    _choose(monkeypatch, path)
    qtbot.mouseClick(page.empty.buttons[0], Qt.MouseButton.LeftButton)
    _open_with_defaults(qtbot, page)
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=20_000)
    assert page.stack.currentWidget() is page.main
    assert page.current_dataset().name == path.name
    assert page.current_dataset().kind == "votes"
    assert "Rows: 401" in page.facts.text() and "Models: 4" in page.facts.text()
    status = page.context.statuses[-1]
    assert "401 pairwise votes from 401 records" in status and "(JSON array)" in status
    assert "1 repeat an earlier battle, counted" in status and "record 401" in status
    board = page.analysis.section("leaderboard").tables[0]
    expected = stats.fit_votes(read_vote_file(path).votes).scores_dict()
    assert [row[1] for row in board.rows] == list(expected)
    bt_column = board.columns.index("BT/100")
    assert [row[bt_column] for row in board.rows] == pytest.approx(list(expected.values()))


def test_open_jsonl_and_a_parquet_counts_table(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = battles(200, seed=5)
    jsonl = tmp_path / "battles.jsonl"
    jsonl.write_text("".join(json.dumps(b) + "\n" for b in data), encoding="utf-8")
    page.open_csv_file(jsonl)
    qtbot.waitUntil(
        lambda: page.analysis is not None and page.analysis.dataset == jsonl.name, timeout=20_000
    )
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "model_a": ["flux-pro", "dalle-3"],
            "model_b": ["dalle-3", "sdxl-turbo"],
            "wins_a": [30, 25],
            "wins_b": [10, 5],
            "ties": [4, 0],
        }
    )
    counts = tmp_path / "counts.parquet"
    pq.write_table(table, counts)
    page.open_csv_file(counts)
    qtbot.waitUntil(
        lambda: page.analysis is not None and page.analysis.dataset == counts.name, timeout=20_000
    )
    assert "Rows: 74" in page.facts.text()
    assert [d.name for d in page.datasets] == [jsonl.name, counts.name]
    assert "(parquet counts)" in page.context.statuses[-1]


def test_malformed_battle_file_names_the_record_and_keeps_the_page(
    qtbot, page, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    data = battles(5)
    data[2]["winner"] = "left"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    _choose(monkeypatch, path)
    page.act_open.trigger()
    _open_with_defaults(qtbot, page)
    title, text = page.context.messages[-1]
    assert title == "Cannot open bad.json"
    assert (
        "bad.json record 3 (line 20), field 'winner': expected one of model_a, model_b, "
        "tie or tie (bothbad), got 'left'" in text
    )
    assert page.stack.currentWidget() is page.empty and page.analysis is None


@pytest.mark.parametrize("name", ["big.json", "big.jsonl"])
def test_cancel_while_a_battle_file_streams_stops_reading_and_opens_nothing(
    qtbot, page, monkeypatch, tmp_path, name
) -> None:  # type: ignore[no-untyped-def]
    """Cancel in the Jobs panel during the read: it stops at the next chunk, no error box,
    no data set, the page as it was."""
    pad = "x" * 2000  # ~2 KB a battle: the file spans several 1 MB chunks
    records = [dict(b, note=pad) for b in battles(2000)]
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(b) + "\n" for b in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records), encoding="utf-8")
    seen: list[int] = []

    start = page.context.start_job

    def start_job(title, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        def cancelling(state):  # type: ignore[no-untyped-def]
            plain = state.set_progress

            def set_progress(done: int) -> None:
                seen.append(done)
                plain(done)
                state.cancel()  # the user presses Cancel at the first progress

            state.set_progress = set_progress
            return fn(state)

        return start(title, cancelling, *args, **kwargs)

    monkeypatch.setattr(page.context, "start_job", start_job)
    job = page.open_csv_file(path)
    assert job.outcome == "cancelled"
    assert len(seen) == 1 and seen[0] < path.stat().st_size / 2
    assert page.context.messages == [] and page.csv_sets == []
    assert page.stack.currentWidget() is page.empty and page.analysis is None


def test_arena_options_leave_out_both_bad_and_named_battles_like_winnow_stats(
    qtbot, page, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The dialog's choices are `winnow stats --bothbad drop --anonymous-only`: the same
    votes are read, and the data set says what was left out (beside the default one)."""
    from core.stats.battles import BattleOptions

    data = battles()
    for k in range(0, len(data), 7):
        data[k]["anony"] = False
    path = tmp_path / "arena.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    dialog = page.ask_arena_options(path)
    assert dialog is not None and dialog.anonymous.isEnabled()
    dialog.bothbad.setCurrentIndex(dialog.bothbad.findData("drop"))
    dialog.anonymous.setChecked(True)
    dialog.accept()
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=20_000)
    ds = page.current_dataset()
    assert ds.name == "arena.json (both-bad left out, anonymous only)"
    want = read_vote_file(path, options=BattleOptions(bothbad="drop", anonymous_only=True))
    kept = [b for b in data if b["anony"] and b["winner"] != "tie (bothbad)"]
    assert len(want.votes) == len(kept)
    assert f"Rows: {len(kept)}" in page.facts.text()
    # a Winnow CSV opens without the dialog
    csv = tmp_path / "votes.csv"
    csv.write_text("rater,item,a,b,winner\nr,i,x,y,a\n", encoding="utf-8")
    assert page.ask_arena_options(csv) is None



def test_online_elo_on_the_leaderboard_equals_winnow_stats_elo_online(
    qtbot, page, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    from core.stats.online_elo import online_elo_ratings

    data = battles(300, seed=11)
    stamps = np.random.default_rng(4).permutation(len(data))  # time order ≠ file order
    for battle, stamp in zip(data, stamps, strict=True):
        battle["tstamp"] = 1.7e9 + float(stamp)
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _choose(monkeypatch, path)
    qtbot.mouseClick(page.empty.buttons[0], Qt.MouseButton.LeftButton)
    _open_with_defaults(qtbot, page)
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=20_000)
    controls = page.controls
    assert controls.online.isEnabled() and not controls.online_k.isEnabled()
    assert controls.online.toolTip().startswith("Votes: also replay")
    assert page.views["leaderboard"].controls.indexOf(controls.tab_rows["leaderboard"]) >= 0
    controls.n_boot.setValue(200)
    controls.seed.setValue(3)
    qtbot.mouseClick(controls.online, Qt.MouseButton.LeftButton)
    assert controls.online_k.isEnabled()
    controls.online_k.setValue(6.0)
    qtbot.waitUntil(lambda: page.analysis.options.online_elo
                    and page.analysis.options.online_k == 6.0
                    and page.analysis.options.n_boot == 200
                    and page.analysis.options.seed == 3, timeout=20_000)
    lead = page.analysis.section("leaderboard")
    table = next(t for t in lead.tables if t.key == "online-elo")
    assert "time order (tstamp)" in table.note and "K = 6" in table.note
    assert [c.title for c in lead.charts][-1] == "Online Elo (FastChat)"
    shown = page.views["leaderboard"]
    qtbot.waitUntil(lambda: len(shown.charts) == 2, timeout=5_000)
    cli = subprocess.run([sys.executable, "-m", "app", "stats", "elo", str(path), "--online",
                          "--k", "6", "--bootstrap", "200", "--ci", "0.95", "--seed", "3"],
                         capture_output=True, text=True, timeout=120, check=True)
    want = json.loads(cli.stdout)["ratings"]
    got = {row[1]: row[2:] for row in table.rows}
    assert list(got) == list(want)  # best first, as the command lists them
    for model, (elo, lo, hi) in got.items():
        assert (elo, lo, hi) == pytest.approx(
            (want[model]["elo"], want[model]["lo"], want[model]["hi"]), abs=1e-9)
    # the battles really were replayed in time order: file order gives other ratings
    in_file_order = online_elo_ratings(read_vote_file(path).votes, k=6.0, n_boot=0)
    assert dict(zip(in_file_order.models, in_file_order.elo, strict=True)) != pytest.approx(
        {m: v[0] for m, v in got.items()}, abs=1e-6)
    qtbot.mouseClick(controls.online, Qt.MouseButton.LeftButton)  # off again: gone
    qtbot.waitUntil(lambda: not page.analysis.options.online_elo, timeout=20_000)
    assert [t.key for t in page.analysis.section("leaderboard").tables] == ["leaderboard"]


def test_a_big_statistics_csv_shows_its_passes_and_cancel_stops_it(
    qtbot, page, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Winnow's own vote CSV (2,000,000 rows took a minute) showed no progress and Cancel
    waited for the whole read: now each pass is a step and Cancel stops at the next."""
    path = tmp_path / "votes.csv"
    path.write_text("rater,item,a,b,winner\n" + "".join(
        f"r{k % 3},i{k},{MODELS[k % 4]},{MODELS[(k + 1) % 4]},a\n" for k in range(300)),
        encoding="utf-8")
    seen: list[tuple[int, int | None, str]] = []
    start = page.context.start_job

    def start_job(title, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        def cancelling(state):  # type: ignore[no-untyped-def]
            plain = state.set_progress

            def set_progress(done: int) -> None:
                plain(done)
                seen.append((done, state.total, state.status))
                if done == 1:
                    state.cancel()  # the user presses Cancel during the second pass

            state.set_progress = set_progress
            return fn(state)

        return start(title, cancelling, *args, **kwargs)

    monkeypatch.setattr(page.context, "start_job", start_job)
    job = page.open_csv_file(path)
    assert job.outcome == "cancelled"
    assert seen == [(0, 4, "Reading votes.csv: checking the columns"),
                    (1, 4, "Reading votes.csv: checking every row")]
    assert page.context.messages == [] and page.csv_sets == []
