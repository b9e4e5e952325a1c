"""The rater views driven by real key presses (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import MODELS, make_session

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402

from core.rating.merge import merge_file  # noqa: E402
from core.rating.pacing import TaskClock  # noqa: E402
from core.rating.results import result_rows  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402

K = Qt.Key
TWO = ("s000", "s001")


def _open(qtbot, path: Path, clock: TaskClock | None = None) -> RaterWindow:  # type: ignore[no-untyped-def]
    window = RaterWindow(RatingSession.open(path), clock=clock)
    qtbot.addWidget(window)
    window.show()
    return window


def _keys(qtbot, window: RaterWindow, *keys: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    for key in keys:
        qtbot.keyClick(window, key)


def _name(qtbot, window: RaterWindow, name: str) -> None:  # type: ignore[no-untyped-def]
    assert window.stack.currentWidget() is window.name_page
    qtbot.keyClicks(window.name_edit, name)
    qtbot.keyClick(window.name_edit, K.Key_Return)
    assert window.stack.currentWidget() is window.task_page


def _start(qtbot, project, tmp_path: Path, protocol: str, rater: str,  # type: ignore[no-untyped-def]
           models: tuple[str, ...] = MODELS[:1]) -> RaterWindow:
    """A one-sample session of ``protocol`` opened by ``rater``, on its first task."""
    path = make_session(project, tmp_path / protocol, protocol, raters=1, sample_ids=TWO[:1],
                        models=models)[0]
    window = _open(qtbot, path)
    _name(qtbot, window, rater)
    return window


def _blind(project) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return dict(project.conn.execute("SELECT token, model FROM rating_blinding"))


def test_ranking_by_number_keys_and_impossible_flag(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    w = _open(qtbot, path)
    qtbot.keyClick(w.name_edit, K.Key_Return)  # empty name is refused
    assert "name" in w.name_error.text() and w.stack.currentWidget() is w.name_page
    _name(qtbot, w, "Ada")
    first = w.current
    _keys(qtbot, w, K.Key_Return)  # nothing ranked yet: nothing saved
    assert w.session.progress()[0] == 0 and "rank" in w.status.text()
    # focus starts on A: give A rank 3, then B 1, C 4, D 2 (focus moves on by itself)
    _keys(qtbot, w, K.Key_3, K.Key_1, K.Key_4, K.Key_2, K.Key_Return)
    assert w.session.progress()[0] == 1 and w.current is not first
    second = w.current
    _keys(qtbot, w, K.Key_I)
    assert w.reason.isVisible()
    qtbot.keyClicks(w.reason, "two outputs identical")
    qtbot.keyClick(w.reason, K.Key_Return)
    assert w.session.answer_for(second.task_id).flag == "impossible"
    assert w.stack.currentWidget() is w.done_page
    w.close()
    merge_file(rproject, path)
    blind = _blind(rproject)
    toks = [t for t, _ in first.options]
    expected = {blind[toks[0]]: 3, blind[toks[1]]: 1, blind[toks[2]]: 4, blind[toks[3]]: 2}
    _, rows = result_rows(rproject, "ranking")
    assert {m: r for _rater, _item, m, r in rows} == expected
    assert {rater for rater, *_ in rows} == {"Ada"} and len(rows) == len(MODELS)


def test_likert_gate_then_three_ratings(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "likert", raters=1, sample_ids=TWO[:1],
                        models=MODELS[:2])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Bo")
    a = w.current
    _keys(qtbot, w, K.Key_4)  # ratings before the validity gate do nothing
    _keys(qtbot, w, K.Key_Y, K.Key_5, K.Key_2, K.Key_Up, K.Key_3, K.Key_Down, K.Key_1,
          K.Key_Return)
    assert w.session.answer_for(a.task_id).answer == {"valid": True, "IF": 5, "IC": 3, "VQ": 1}
    b = w.current
    _keys(qtbot, w, K.Key_N)
    qtbot.keyClick(w.reason, K.Key_Escape)  # changed their mind
    assert not w.reason.isVisible() and w.session.answer_for(b.task_id) is None
    _keys(qtbot, w, K.Key_N)
    qtbot.keyClicks(w.reason, "asks for something impossible")
    qtbot.keyClick(w.reason, K.Key_Return)
    j = w.session.answer_for(b.task_id)
    assert (j.flag, j.reason, j.answer) == ("invalid", "asks for something impossible",
                                            {"valid": False})
    w.close()
    merge_file(rproject, path)
    model_a = _blind(rproject)[a.options[0][0]]
    assert result_rows(rproject, "likert")[1] == [["Bo", "s000", model_a, "IF", 5],
                                                  ["Bo", "s000", model_a, "IC", 3],
                                                  ["Bo", "s000", model_a, "VQ", 1]]


def test_side_by_side_arrows_tie_and_change_last_answer(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=TWO[:1], models=MODELS[:3])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Cy")
    t1 = w.current
    _keys(qtbot, w, K.Key_Right, K.Key_Return)
    t2 = w.current
    _keys(qtbot, w, K.Key_Down, K.Key_Return)
    assert w.session.answer_for(t2.task_id).answer == {"winner": "tie"}
    t3 = w.current
    _keys(qtbot, w, K.Key_Backspace)  # change my last answer: t2 comes back, tie shown
    assert w.current is t2 and w.panel.choice == "tie"
    _keys(qtbot, w, K.Key_Left, K.Key_Return)
    assert w.current is t3
    assert w.session.answer_for(t2.task_id).answer == {"winner": "left"}
    assert len(w.session.judgments()) == 3  # the old answer is kept, superseded
    _keys(qtbot, w, K.Key_1, K.Key_Return)
    assert w.stack.currentWidget() is w.done_page
    w.close()
    merge_file(rproject, path)
    blind = _blind(rproject)
    expected = []
    for task, winner in ((t1, "b"), (t2, "a"), (t3, "a")):
        expected.append([blind[task.options[0][0]], blind[task.options[1][0]], winner,
                         "Cy", "s000", "preference"])
    _, rows = result_rows(rproject, "side_by_side")
    assert sorted(rows) == sorted(expected)


def test_checklist_yes_no_keys(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "checklist", raters=1, sample_ids=TWO[:1],
                        models=MODELS[:1])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Di")
    task = w.current
    _keys(qtbot, w, K.Key_Y, K.Key_Y, K.Key_N, K.Key_Return)
    assert w.session.progress()[0] == 0 and "4, 5, 6" in w.status.text()
    _keys(qtbot, w, K.Key_1, K.Key_0, K.Key_Y, K.Key_Up, K.Key_Up, K.Key_Up, K.Key_Y,
          K.Key_Return)
    assert w.session.answer_for(task.task_id).answer == {"q1": 1, "q2": 1, "q3": 1, "q4": 1,
                                                         "q5": 0, "q6": 1}
    w.close()
    merge_file(rproject, path)
    assert result_rows(rproject, "checklist")[1] == [[MODELS[0], "T2I", "s000", "s000",
                                                      1, 1, 1, 1, 0, 1]]


def _paced(qtbot, rproject, tmp_path: Path, penalty_s: float):  # type: ignore[no-untyped-def]
    """A side-by-side rater view with a 4 s minimum time on a clock the test moves."""
    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=TWO[:1], min_time_s=4.0, penalty_s=penalty_s)[0]
    now = [1000.0]
    w = _open(qtbot, path, TaskClock(lambda: now[0]))
    _name(qtbot, w, "Ed")
    return w, now


def test_min_time_penalty_countdown_holds_the_next_task(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, now = _paced(qtbot, rproject, tmp_path, penalty_s=0.4)
    t1 = w.current
    now[0] += 1.0  # too quick
    _keys(qtbot, w, K.Key_Left, K.Key_Return)
    j = w.session.answer_for(t1.task_id)
    assert j is not None and j.penalty_ms == 400 and j.time_ms == 1000  # saved at once
    assert w.current is t1 and w.penalty_left_ms > 0
    assert "next task in" in w.status.text()
    _keys(qtbot, w, K.Key_Right, K.Key_Return)  # held back: nothing else is saved
    assert len(w.session.judgments()) == 1
    qtbot.waitUntil(lambda: w.current is not t1, timeout=3000)
    t2 = w.current
    now[0] += 4.5  # took its time: no penalty
    _keys(qtbot, w, K.Key_Right, K.Key_Return)
    assert w.session.answer_for(t2.task_id).penalty_ms == 0
    assert w.current is not t2 and w.penalty_left_ms == 0
    w.close()


def test_pause_hides_images_stops_the_clock_and_is_logged(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                          tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=TWO[:1])[0]
    now = [0.0]
    w = _open(qtbot, path, TaskClock(lambda: now[0]))
    _name(qtbot, w, "Flo")
    task = w.current
    now[0] += 2.0
    _keys(qtbot, w, K.Key_Space)
    assert w.panel_host.currentWidget() is w.pause_page
    now[0] += 600.0
    _keys(qtbot, w, K.Key_Left, K.Key_Return)  # ignored while paused
    assert w.session.progress()[0] == 0
    _keys(qtbot, w, K.Key_Space)
    assert w.panel_host.currentWidget() is w.panel
    now[0] += 1.0
    _keys(qtbot, w, K.Key_Left, K.Key_Return)
    assert w.session.answer_for(task.task_id).time_ms == 3000
    kinds = [e[1] for e in w.session.events()]
    assert kinds == ["open", "pause", "resume"]
    w.close()
    # resume later: a new window continues with the next task, name remembered
    w2 = _open(qtbot, path)
    assert w2.stack.currentWidget() is w2.task_page and w2.current.position == 1
    w2.close()


def test_zoom_keys_and_prefetch(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Gus")
    qtbot.waitUntil(lambda: all(sha in w._pixmaps for sha in
                                w.session.following(w.current).image_shas), timeout=2000)
    tile = w.panel.tiles[0]
    _keys(qtbot, w, K.Key_Plus, K.Key_Plus)
    assert tile.view.zoom == pytest.approx(1.5625)
    _keys(qtbot, w, K.Key_0)
    assert tile.view.zoom == 1.0
    assert not tile.view.item.pixmap().isNull()
    w.close()


def test_likert_hint_to_answer_the_gate_first_clears_once_answered(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                                   tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "likert", raters=1, sample_ids=TWO[:1],
                        models=MODELS[:2])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Bo")
    _keys(qtbot, w, K.Key_Return)  # too early
    assert w.status.text() == "First answer Y (valid) or N (invalid)."
    _keys(qtbot, w, K.Key_Y)
    assert w.status.text() == ""
    _keys(qtbot, w, K.Key_5, K.Key_Return)  # still incomplete: the right hint now
    assert w.status.text() == "Rate IC, VQ first (1–5)."
    _keys(qtbot, w, K.Key_4, K.Key_3)
    assert w.status.text() == ""
    w.close()


def test_a_stale_ranking_hint_clears_after_a_drag(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO[:1])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Cy")
    _keys(qtbot, w, K.Key_Return)
    assert "Give every output a rank first" in w.status.text()
    panel = w.panel
    panel._dropped([[k] for k in range(len(w.current.options))], 0)  # as a drop reports
    assert w.status.text() == ""
    w.close()


def test_backspace_during_the_penalty_reopens_the_answer_when_the_hold_ends(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    w, now = _paced(qtbot, rproject, tmp_path, penalty_s=0.6)
    t1 = w.current
    now[0] += 1.0
    _keys(qtbot, w, K.Key_Left, K.Key_Return)
    first = w.session.answer_for(t1.task_id)
    assert w.penalty_left_ms > 0
    _keys(qtbot, w, K.Key_Backspace)  # used to be ignored without a word
    assert "your answer reopens to be changed" in w.status.text()
    assert w.current is t1 and w.superseding is None  # the hold is not cut short
    qtbot.waitUntil(lambda: w.superseding is not None, timeout=3000)
    assert w.current.task_id == t1.task_id and w.penalty_left_ms == 0
    assert f"changing your answer to task 1 of {len(w.session.tasks)}" in w.question.text()
    now[0] += 5.0
    _keys(qtbot, w, K.Key_Right, K.Key_Return)
    changed = w.session.answer_for(t1.task_id)
    assert changed.supersedes == first.uid and changed.answer == {"winner": "right"}
    assert w.current.task_id != t1.task_id
    # Esc during a hold takes the request back: the next task comes as usual
    t2 = w.current
    now[0] += 1.0
    _keys(qtbot, w, K.Key_Left, K.Key_Return, K.Key_Backspace, K.Key_Escape)
    assert "next task in" in w.status.text()
    qtbot.waitUntil(lambda: w.current is not None and w.current.task_id != t2.task_id,
                    timeout=3000)
    assert w.superseding is None
    w.close()


def test_the_rater_window_opens_inside_a_1280x720_screen(qtbot, rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                         monkeypatch) -> None:
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen

    from ui.context import AppContext
    from ui.rate.workspace import RateWorkspace

    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, 1280, 690))
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    context = AppContext()
    page = RateWorkspace(context)
    qtbot.addWidget(page)
    window = page.open_session_file(path)
    assert window is not None
    qtbot.addWidget(window)
    assert window.height() <= 690 and window.width() <= 1280  # was 1400 × 900
    window.close()


def test_side_by_side_by_mouse_buttons(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = _start(qtbot, rproject, tmp_path, "side_by_side", "Di", models=MODELS[:3])
    buttons = w.panel.choice_buttons
    assert list(buttons) == ["left", "tie", "right", "submit"]
    t1 = w.current
    qtbot.mouseClick(buttons["submit"], Qt.MouseButton.LeftButton)  # nothing chosen yet
    assert w.current is t1 and "Choose left" in w.status.text()
    qtbot.mouseClick(buttons["right"], Qt.MouseButton.LeftButton)
    assert w.panel.choice == "right" and buttons["right"].isChecked()
    assert not buttons["left"].isChecked()
    qtbot.mouseClick(buttons["tie"], Qt.MouseButton.LeftButton)
    assert buttons["tie"].isChecked() and not buttons["right"].isChecked()
    qtbot.mouseClick(buttons["submit"], Qt.MouseButton.LeftButton)
    assert w.session.answer_for(t1.task_id).answer == {"winner": "tie"}
    assert w.current is not t1 and not any(b.isChecked() for b in buttons.values())
    qtbot.mouseClick(buttons["left"], Qt.MouseButton.LeftButton)
    _keys(qtbot, w, K.Key_Return)  # the keys and the buttons are one choice
    assert len(w.session.judgments()) == 2
    w.close()


def test_likert_and_checklist_by_mouse_buttons(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = _start(qtbot, rproject, tmp_path, "likert", "Eve")
    t1 = w.current
    panel = w.panel
    assert [b.text() for b in panel.answer_buttons[0]] == ["Yes  (Y)", "No  (N)"]
    qtbot.mouseClick(panel.answer_buttons[0][0], Qt.MouseButton.LeftButton)  # valid
    assert [len(row) for row in panel.answer_buttons] == [5, 5, 5]
    for row, value in ((0, 4), (1, 2), (2, 5)):
        qtbot.mouseClick(panel.answer_buttons[row][value - 1], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.submit_button, Qt.MouseButton.LeftButton)
    answer = w.session.answer_for(t1.task_id).answer
    assert answer["valid"] and [answer[c] for c in ("IF", "IC", "VQ")] == [4, 2, 5]
    w.close()
    w = _start(qtbot, rproject, tmp_path, "checklist", "Fay")
    t1 = w.current
    panel = w.panel
    qtbot.mouseClick(panel.submit_button, Qt.MouseButton.LeftButton)  # nothing answered
    assert w.current is t1 and "first" in w.status.text()
    panel.hold(True)  # the penalty delay after an early answer: the mouse waits too
    assert not panel.submit_button.isEnabled() and not panel.answer_buttons[0][0].isEnabled()
    panel.hold(False)
    for row in range(6):
        qtbot.mouseClick(panel.answer_buttons[row][row % 2], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.submit_button, Qt.MouseButton.LeftButton)
    assert w.session.answer_for(t1.task_id).answer == {f"q{k + 1}": int(k % 2 == 0)
                                                       for k in range(6)}
    w.close()


def test_the_name_page_starts_by_mouse_too(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A rater who types a name and reaches for the mouse has a button to go on with;
    an empty name is refused there as with Enter."""
    path = make_session(rproject, tmp_path / "m", "side_by_side", raters=1,
                        sample_ids=TWO[:1], models=MODELS[:2])[0]
    w = _open(qtbot, path)
    assert w.start_button.isVisible() and "Start" in w.start_button.text()
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    assert "name" in w.name_error.text() and w.stack.currentWidget() is w.name_page
    qtbot.keyClicks(w.name_edit, "Mo")
    qtbot.mouseClick(w.start_button, Qt.MouseButton.LeftButton)
    assert w.stack.currentWidget() is w.task_page and w.session.rater == "Mo"
    w.close()
