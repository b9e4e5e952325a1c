"""The minimum-time penalty in the rater view: after the hold, across a reopen, with the
mouse, when an answer is changed; and one rater window per file (pytest-qt, offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import MODELS, make_session

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402

from core.rating.pacing import TaskClock, hold_left_ms  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402

K = Qt.Key
LEFT = Qt.MouseButton.LeftButton


def _open(qtbot, path: Path, now: list[float]) -> RaterWindow:  # type: ignore[no-untyped-def]
    window = RaterWindow(RatingSession.open(path), clock=TaskClock(lambda: now[0]))
    qtbot.addWidget(window)
    window.show()
    return window


def _paced(qtbot, rproject, tmp_path: Path, protocol: str, penalty_s: float,  # type: ignore[no-untyped-def]
           samples: tuple[str, ...] = ("s000", "s001", "s002")):
    """A paced (4 s minimum) rater view of ``protocol``, named, on a clock the test moves."""
    path = make_session(rproject, tmp_path / protocol, protocol, raters=1, sample_ids=samples,
                        models=MODELS[:2], min_time_s=4.0, penalty_s=penalty_s)[0]
    now = [1000.0]
    w = _open(qtbot, path, now)
    qtbot.keyClicks(w.name_edit, "Ida")
    qtbot.keyClick(w.name_edit, K.Key_Return)
    return path, w, now


def _too_quick(qtbot, w: RaterWindow, now: list[float], *keys: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    """Press ``keys`` on the task on screen after 1 s (quicker than the minimum)."""
    now[0] += 1.0
    for key in keys:
        qtbot.keyClick(w, key)


@pytest.mark.parametrize("protocol", ["side_by_side", "checklist", "likert"])
def test_the_mouse_buttons_work_again_once_the_hold_is_over(qtbot, rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                            protocol: str) -> None:
    # the hold disabled the answer buttons and nothing enabled them again: after one
    # early answer a side-by-side or checklist rater (or a Likert one after "invalid")
    # could no longer answer with the mouse, for the rest of the window's life
    _path, w, now = _paced(qtbot, rproject, tmp_path, protocol, penalty_s=0.2)
    keys = {"side_by_side": (K.Key_Left, K.Key_Return),
            "checklist": (K.Key_Y,) * 6 + (K.Key_Return,),
            "likert": (K.Key_N,)}[protocol]
    t1 = w.current
    _too_quick(qtbot, w, now, *keys)
    if protocol == "likert":  # invalid needs a reason: the hold starts when it is saved
        qtbot.keyClicks(w.reason, "not feasible")
        qtbot.keyClick(w.reason, K.Key_Return)
    assert w.penalty_left_ms > 0
    qtbot.waitUntil(lambda: w.current is not t1 and w.penalty_left_ms == 0, timeout=3000)
    t2 = w.current
    now[0] += 5.0
    panel = w.panel
    if protocol == "side_by_side":
        buttons = panel.choice_buttons
        clicks = [buttons["right"], buttons["submit"]]
    elif protocol == "checklist":
        clicks = [row[1] for row in panel.answer_buttons] + [panel.submit_button]
    else:
        clicks = [panel.answer_buttons[0][0]]
    assert all(b.isEnabled() for b in clicks)
    for button in clicks:
        qtbot.mouseClick(button, LEFT)
    if protocol == "likert":  # valid: now the three rows of 1–5
        for row in range(3):
            qtbot.mouseClick(panel.answer_buttons[row][2], LEFT)
        qtbot.mouseClick(panel.submit_button, LEFT)
    assert w.session.answer_for(t2.task_id) is not None
    w.close()


def test_closing_the_window_during_the_hold_does_not_skip_it(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                             tmp_path: Path) -> None:
    # closing and opening the file again showed the next task at once: the penalty
    # for answering too quickly was gone with the window
    path, w, now = _paced(qtbot, rproject, tmp_path, "side_by_side", penalty_s=60.0)
    t1 = w.current
    _too_quick(qtbot, w, now, K.Key_Left, K.Key_Return)
    assert w.penalty_left_ms > 0
    w.close()
    w2 = _open(qtbot, path, now)
    assert w2.penalty_left_ms > 0 and "next task in" in w2.status.text()
    assert w2.current is not None and w2.current.task_id == t1.task_id
    now[0] += 5.0
    for key in (K.Key_Right, K.Key_Return):  # held back: nothing else is saved
        qtbot.keyClick(w2, key)
    assert len(w2.session.judgments()) == 1
    assert w2.session.answer_for(t1.task_id).answer == {"winner": "left"}
    w2.close()


def test_what_is_left_of_a_hold_after_a_reopen() -> None:
    submitted = "2026-01-01T10:00:00.000+00:00"
    assert hold_left_ms(5000, submitted, "2026-01-01T10:00:02.000+00:00") == 3000
    assert hold_left_ms(5000, submitted, "2026-01-01T10:00:09.000+00:00") == 0
    # a clock put back (or a time the file cannot give) holds the whole delay, never more
    assert hold_left_ms(5000, submitted, "2026-01-01T09:00:00.000+00:00") == 5000
    assert hold_left_ms(5000, "not a time", "2026-01-01T10:00:02.000+00:00") == 5000
    assert hold_left_ms(0, submitted, "2026-01-01T10:00:00.500+00:00") == 0


def test_changing_an_answer_counts_the_time_spent_on_it_before(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path) -> None:
    # a rater who looked 6 s and then fixed a slip in 1 s was held back as answering too
    # quickly, and the summary counted the fix as an early answer with a 1 s time
    _path, w, now = _paced(qtbot, rproject, tmp_path, "side_by_side", penalty_s=30.0)
    t1 = w.current
    now[0] += 6.0
    for key in (K.Key_Left, K.Key_Return):
        qtbot.keyClick(w, key)
    assert w.penalty_left_ms == 0 and w.current is not t1
    qtbot.keyClick(w, K.Key_Backspace)
    assert w.current.task_id == t1.task_id and w.superseding is not None
    now[0] += 1.0
    for key in (K.Key_Right, K.Key_Return):
        qtbot.keyClick(w, key)
    changed = w.session.answer_for(t1.task_id)
    assert changed.answer == {"winner": "right"} and changed.supersedes is not None
    assert (changed.time_ms, changed.penalty_ms) == (7000, 0) and w.penalty_left_ms == 0
    # a quick answer changed quickly is still quicker than the minimum, together
    t2 = w.current
    now[0] += 1.0
    for key in (K.Key_Left, K.Key_Return):
        qtbot.keyClick(w, key)
    w.penalty_left_ms = 0  # as when the hold is over
    w.advance()
    qtbot.keyClick(w, K.Key_Backspace)
    assert w.current.task_id == t2.task_id
    now[0] += 1.0
    for key in (K.Key_Right, K.Key_Return):
        qtbot.keyClick(w, key)
    again = w.session.answer_for(t2.task_id)
    assert (again.time_ms, again.penalty_ms) == (2000, 30000) and w.penalty_left_ms > 0
    w.close()


def test_opening_a_file_that_is_open_already_shows_its_window(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path) -> None:
    # File → Open on the file a rater window already had open made a second window on it:
    # an answer in one made the other refuse ("answered in another window") and the
    # second window's penalty hold and clock knew nothing of the first's
    from ui.context import AppContext
    from ui.rate.workspace import RateWorkspace

    path = make_session(rproject, tmp_path / "o", "side_by_side", raters=1,
                        sample_ids=("s000",), models=MODELS[:2])[0]
    page = RateWorkspace(AppContext())
    qtbot.addWidget(page)
    first = page.open_session_file(path)
    assert first is not None
    qtbot.addWidget(first)
    again = page.open_session_file(tmp_path / "o" / ".." / "o" / path.name)
    assert again is first and page.raters == [first]
    first.close()
    other = page.open_session_file(path)  # once closed, the file opens anew
    assert other is not None and other is not first
    qtbot.addWidget(other)
    other.close()


@pytest.mark.parametrize(("protocol", "kw", "listed", "not_listed"), [
    # a side-by-side session without a tie listed "↓ or T tie", keys that do nothing
    ("side_by_side", {"allow_tie": False}, "← or 1 left", "tie"),
    ("side_by_side", {}, "↓ or T tie", None),
    # ranks are typed up to the number of outputs a task shows, not always 1–9
    ("ranking", {}, "1–4 give its rank", "1–9"),
    ("ranking", {"allow_ties": True}, "same rank twice: a tie", None),
    # in a checklist 0 answers no: "0 fit" was listed beside "N/0 no"
    ("checklist", {}, "N/0 no", "0 fit"),
    ("likert", {}, "+/− zoom · 0 fit", None),
])
def test_the_key_help_lists_only_keys_that_work(qtbot, rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                protocol: str, kw: dict, listed: str,
                                                not_listed: str | None) -> None:
    path = make_session(rproject, tmp_path / "o", protocol, raters=1, sample_ids=("s000",),
                        **kw)[0]
    w = _open(qtbot, path, [0.0])
    assert listed in w.hints.text()
    if not_listed:
        assert not_listed not in w.hints.text()
    w.close()
