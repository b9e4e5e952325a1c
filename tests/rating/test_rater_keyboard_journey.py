"""A rater's whole journey with the keyboard only, and the lead's merge of a half-finished
file (ADR 223): what a walk at 1280×720 found missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import MODELS, build_project, make_session
from tamper_helpers import rate_all

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from app.cli import run_cli  # noqa: E402
from core.rating.merge import merge_file  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from core.store import Project  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402

K = Qt.Key
CTRL = Qt.KeyboardModifier.ControlModifier


def _open(qtbot, path: Path) -> RaterWindow:  # type: ignore[no-untyped-def]
    window = RaterWindow(RatingSession.open(path))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()  # a shortcut (Ctrl+W) acts in the active window
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


def _keys(qtbot, window: RaterWindow, *keys: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    for key in keys:
        qtbot.keyClick(window, key)


def _name(qtbot, window: RaterWindow, name: str) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClicks(window.name_edit, name)
    qtbot.keyClick(window.name_edit, K.Key_Return)
    assert window.stack.currentWidget() is window.task_page


def test_changing_a_likert_answer_says_so_and_can_turn_it_invalid(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "likert", raters=1, sample_ids=("s000",),
                        models=MODELS[:2])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Ada")
    first = w.current
    _keys(qtbot, w, K.Key_Y, K.Key_4, K.Key_4, K.Key_4, K.Key_Return)
    old = w.session.answer_for(first.task_id)
    assert w.current is not first
    _keys(qtbot, w, K.Key_Backspace)  # change my last answer
    assert w.current.task_id == first.task_id
    # the panel puts its 1–5 scale above the images: the note that this is a change stays
    # (it used to vanish, so a rater could not tell a change from a new task)
    assert "Rate the edited output" in w.question.text()
    assert f"changing your answer to task 1 of {len(w.session.tasks)}" in w.question.text()
    # the instruction was invalid after all: N asks for the reason (Esc would keep the old
    # answer, so the validity question could not be reached again)
    _keys(qtbot, w, K.Key_N)
    assert w.reason.isVisible()
    qtbot.keyClicks(w.reason, "the house has no chimney to remove")
    qtbot.keyClick(w.reason, K.Key_Return)
    new = w.session.answer_for(first.task_id)
    assert (new.flag, new.answer, new.supersedes) == ("invalid", {"valid": False}, old.uid)
    w.close()


def test_the_keyboard_closes_the_window_and_the_done_page_gives_the_files_path(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=("s000",), models=MODELS[:3])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Bob")
    assert "Ctrl+W close" in w.hints.text()
    _keys(qtbot, w, K.Key_Left, K.Key_Return)
    assert w.progress.text().startswith("1 of 3 answered")  # and that answers are saved
    assert "saved" in w.progress.text()
    second = w.current
    qtbot.keyClick(w, K.Key_W, CTRL)  # half-way: no mouse, no window manager
    assert w.session.closed and not w.isVisible()
    w = _open(qtbot, path)  # reopened: the same task, nothing lost
    assert w.current.task_id == second.task_id and w.session.progress() == (1, 3)
    _keys(qtbot, w, K.Key_Right, K.Key_Return, K.Key_Left, K.Key_Return)
    assert w.stack.currentWidget() is w.done_page
    assert str(path) in w.done_label.text() and "Ctrl+W" in w.done_label.text()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(w, K.Key_C, CTRL)
    assert QGuiApplication.clipboard().text() == str(path)
    qtbot.keyClick(w, K.Key_W, CTRL)
    assert w.session.closed


def test_merging_a_half_finished_file_says_how_far_the_rater_got(rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                capsys) -> None:
    files = make_session(rproject, tmp_path / "o", "side_by_side", raters=2,
                         sample_ids=("s000", "s001"), models=MODELS[:3])
    done, half = (RatingSession.open(f) for f in files)
    for session, name, stop in ((done, "Ada", None), (half, "Bob", 2)):
        session.set_rater(name)
        k = 0
        while (t := session.next_task()) is not None and k != stop:
            session.submit(t.task_id, {"winner": "left"}, time_ms=3000)
            k += 1
    total = len(half.tasks)
    done.close()
    half.close()
    project_path = rproject.path
    rproject.close()  # the lead merges with the CLI
    assert run_cli(["session", "merge", str(project_path), *map(str, files)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "not finished" not in out[0]
    assert f"not finished: 2 of {total} task(s) answered" in out[1] and "Bob" in out[1]
    with Project.open(project_path) as project:  # merged twice: nothing new, not finished
        again = merge_file(project, files[1])
        unopened = make_session(project, tmp_path / "u", "checklist", raters=1,
                                sample_ids=("s000",), models=MODELS[:1])[0]
        fresh = merge_file(project, unopened)
    assert (again.added, again.answered, again.tasks) == (0, 2, total)
    assert "0 new judgment(s), 2 already merged; not finished" in again.summary()
    assert "(no rater yet)" in fresh.summary()
    assert "not started: none of its 1 task(s) answered" in fresh.summary()


def test_the_gui_merge_shows_the_session_it_merged_into(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                        tmp_path: Path) -> None:
    project = build_project(tmp_path / "w.winnow")
    ranking = make_session(project, tmp_path / "rk", "ranking", raters=1,
                           sample_ids=("s000",))[0]
    make_session(project, tmp_path / "sbs", "side_by_side", raters=1, sample_ids=("s000",),
                 models=MODELS[:2])
    project.close()
    rate_all(ranking, "Ada", change_first=False)
    assert main_window.open_project(tmp_path / "w.winnow")
    page = main_window.pages["rate"]
    row = next(r for r in range(page.sessions.rowCount())
               if page.sessions.item(r, 0).text() == "side_by_side")
    page.sessions.selectRow(row)
    assert page.selected_session() == "side_by_side"
    page.merge([ranking])
    qtbot.waitUntil(lambda: page.last_job.future.done(), timeout=10_000)
    # the raters' table is the merged session's, with Ada's file returned (it stayed on
    # the other session, whose every file read "not returned yet")
    qtbot.waitUntil(lambda: page.selected_session() == "ranking", timeout=5000)
    assert page.summary.item(0, 1).text() == "Ada"
    main_window.runner.shutdown()
    main_window.close_project()


@pytest.mark.parametrize("protocol", ["ranking", "likert", "checklist"])
def test_tab_and_shift_tab_move_between_outputs_and_questions(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path,
                                                              protocol: str) -> None:
    path = make_session(rproject, tmp_path / "o", protocol, raters=1, sample_ids=("s000",))[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Cy")
    if protocol == "likert":
        _keys(qtbot, w, K.Key_Y)

    def where() -> int:
        return int(w.panel.focus if protocol == "ranking" else w.panel.row)

    assert where() == 0
    _keys(qtbot, w, K.Key_Tab, K.Key_Tab)  # Tab did nothing in the Likert and checklist
    assert where() == 2
    qtbot.keyClick(w, K.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert where() == 1
    assert "Tab" in w.hints.text()
    w.close()


def test_a_choice_is_shown_plainly_and_a_missing_answer_as_a_warning(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    """"Chosen: left. Enter to confirm." was in the warning colour, as if something were
    wrong; a missing answer stays a warning."""
    from ui.widgets.theme import tone_text

    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=("s000",), models=MODELS[:3])[0]
    w = _open(qtbot, path)
    _name(qtbot, w, "Cy")
    warning = tone_text("warning").name()
    _keys(qtbot, w, K.Key_Return)  # nothing chosen yet
    assert w.status.text().startswith("Choose left")
    assert warning in w.status.styleSheet()
    _keys(qtbot, w, K.Key_Left)
    assert w.status.text() == "Chosen: left. Enter to confirm."
    assert warning not in w.status.styleSheet()
    w.close()
