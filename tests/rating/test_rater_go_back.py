"""Going back to an earlier task in the rater view and changing its answer (ADR 229):
PgUp / Alt+← and PgDn / Alt+→, keyboard only (pytest-qt, offscreen)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tamper_helpers as th
from rating_helpers import MODELS, make_session

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QLabel  # noqa: E402

from core.rating.audit import audit_file  # noqa: E402
from core.rating.integrity import stored_secret, verify  # noqa: E402
from core.rating.merge import merge_file  # noqa: E402
from core.rating.pacing import TaskClock  # noqa: E402
from core.rating.results import rater_summaries, result_rows  # noqa: E402
from core.rating.returned import read_returned  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402

K = Qt.Key
ALT = Qt.KeyboardModifier.AltModifier
REPO = Path(__file__).resolve().parents[2]
#: keys giving a first answer, and keys changing it, per protocol (the answer reopened)
ANSWER = {"side_by_side": (K.Key_Left, K.Key_Return),
          "ranking": (K.Key_1, K.Key_2, K.Key_3, K.Key_4, K.Key_Return),
          "likert": (K.Key_Y, K.Key_4, K.Key_4, K.Key_4, K.Key_Return),
          "checklist": (K.Key_Y,) * 6 + (K.Key_Return,)}
CHANGE = {"side_by_side": (K.Key_Right, K.Key_Return),
          "ranking": (K.Key_4, K.Key_3, K.Key_2, K.Key_1, K.Key_Return),
          "likert": (K.Key_2, K.Key_Return),
          "checklist": (K.Key_N, K.Key_Return)}


def _open(qtbot, path: Path, clock: TaskClock | None = None) -> RaterWindow:  # type: ignore[no-untyped-def]
    window = RaterWindow(RatingSession.open(path), clock=clock)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()  # the keyboard goes where the focus is, as for a rater
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


def _keys(qtbot, window: RaterWindow, *keys: Qt.Key) -> None:  # type: ignore[no-untyped-def]
    for key in keys:
        qtbot.keyClick(window, key)


def _named(qtbot, path: Path, clock: TaskClock | None = None) -> RaterWindow:  # type: ignore[no-untyped-def]
    window = _open(qtbot, path, clock)
    qtbot.keyClicks(window.name_edit, "Ada")
    qtbot.keyClick(window.name_edit, K.Key_Return)
    assert window.stack.currentWidget() is window.task_page
    return window


def _assert_returned_file_verifies(rproject, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The file reads back without a problem and its MAC chain verifies with the project's key."""
    found = read_returned(path)
    assert found.problems == []
    secret = stored_secret(rproject.conn, 1)
    assert secret is not None
    assert verify(secret, found.meta["file_uid"], found.document(), found.meta["tasks_mac"],
                  found.entries(), found.chain) == []


def _sbs(rproject, tmp_path: Path, **kw) -> Path:  # type: ignore[no-untyped-def]
    """A side-by-side file of 6 tasks (one sample, four models) for one rater."""
    args = {"raters": 1, "sample_ids": ("s000",), "models": MODELS}
    args.update(kw)
    return make_session(rproject, tmp_path / "o", "side_by_side", **args)[0]


def test_back_twice_forward_change_and_resume_at_the_first_unanswered(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    w = _named(qtbot, _sbs(rproject, tmp_path))
    tasks, n = w.session.tasks, len(w.session.tasks)
    qtbot.keyClick(w, K.Key_PageUp)  # nothing answered: nothing to go back to
    assert w.current is tasks[0] and w.superseding is None
    assert "No answer to change yet" in w.status.text()
    _keys(qtbot, w, K.Key_Left, K.Key_Return, K.Key_Down, K.Key_Return,
          K.Key_Right, K.Key_Return)
    assert w.current is tasks[3]
    qtbot.keyClick(w, K.Key_PageDown)  # unanswered tasks cannot be skipped ahead to
    assert w.current is tasks[3] and "Answer this task first" in w.status.text()
    qtbot.keyClick(w, K.Key_PageUp)
    assert w.current is tasks[2] and w.panel.choice == "right"
    qtbot.keyClick(w, K.Key_Left, ALT)  # back twice: the same task as it was shown
    assert w.current is tasks[1] and w.panel.choice == "tie"
    assert f"changing your answer to task 2 of {n}" in w.question.text()
    old = w.session.answer_for(tasks[1].task_id)
    qtbot.keyClick(w, K.Key_Right, ALT)  # forward again: task 3, its answer chosen
    assert w.current is tasks[2] and w.panel.choice == "right"
    assert f"task 3 of {n}" in w.question.text()
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp)
    assert w.current is tasks[0] and w.panel.choice == "left"
    qtbot.keyClick(w, K.Key_PageUp)  # the first task has nothing before it
    assert w.current is tasks[0] and "first task" in w.status.text()
    _keys(qtbot, w, K.Key_PageDown, K.Key_Left, K.Key_Return)  # change task 2: tie → left
    new = w.session.answer_for(tasks[1].task_id)
    assert new.answer == {"winner": "left"} and new.supersedes == old.uid
    assert w.current is tasks[3] and w.superseding is None  # back where the rater was
    assert "changing" not in w.question.text()
    assert w.session.progress() == (3, n) and len(w.session.judgments()) == 4
    # forward from the last answered task is the first unanswered one, never further
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageDown)
    assert w.current is tasks[3] and w.superseding is None
    # Esc keeps the old answer and returns to the first unanswered task as well
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp, K.Key_Right, K.Key_Escape)
    assert w.current is tasks[3]
    assert w.session.answer_for(tasks[1].task_id) == new
    w.close()


def test_ctrl_g_opens_an_answered_task_by_its_number(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w = _named(qtbot, _sbs(rproject, tmp_path))
    tasks = w.session.tasks
    _keys(qtbot, w, *ANSWER["side_by_side"] * 3)
    ctrl = Qt.KeyboardModifier.ControlModifier

    def go(number: str) -> None:
        qtbot.keyClick(w, K.Key_G, ctrl)
        assert w.goto.isVisible() and w.goto.edit.hasFocus()
        qtbot.keyClicks(w.goto.edit, number)
        qtbot.keyClick(w.goto.edit, K.Key_Return)

    go("5")  # past the first unanswered task (4): refused, the field stays for another
    assert w.current is tasks[3] and w.goto.isVisible()
    assert "Task 5 is not answered yet" in w.goto.problem.text()
    assert "the first unanswered one is task 4" in w.goto.problem.text()
    qtbot.keyClick(w.goto.edit, K.Key_Escape)
    assert not w.goto.isVisible() and w.current is tasks[3] and w.superseding is None
    go("2")
    assert w.current is tasks[1] and w.panel.choice == "left" and not w.goto.isVisible()
    assert f"changing your answer to task 2 of {len(tasks)}" in w.question.text()
    _keys(qtbot, w, *CHANGE["side_by_side"])
    assert w.session.answer_for(tasks[1].task_id).answer == {"winner": "right"}
    assert w.current is tasks[3]
    go("4")  # the first unanswered task is where the rater is: a new answer, not a change
    assert w.current is tasks[3] and w.superseding is None
    _keys(qtbot, w, *ANSWER["side_by_side"] * (len(tasks) - 3))
    assert w.stack.currentWidget() is w.done_page
    go("1")  # from the done page too
    assert w.current is tasks[0] and w.superseding is not None
    w.close()


@pytest.mark.parametrize("protocol", ["ranking", "likert", "side_by_side", "checklist"])
def test_back_and_change_in_every_protocol(qtbot, rproject, tmp_path: Path,  # type: ignore[no-untyped-def]
                                           protocol: str) -> None:
    models = MODELS if protocol == "ranking" else MODELS[:2]
    path = make_session(rproject, tmp_path / protocol, protocol, raters=1,
                        sample_ids=("s000", "s001", "s002"), models=models)[0]
    w = _named(qtbot, path)
    tasks = w.session.tasks
    assert len(tasks) >= 3
    _keys(qtbot, w, *ANSWER[protocol], *ANSWER[protocol])
    first = w.session.answer_for(tasks[0].task_id)
    assert w.current is tasks[2]
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp)
    assert w.current is tasks[0]
    assert f"changing your answer to task 1 of {len(tasks)}" in w.question.text()
    _keys(qtbot, w, *CHANGE[protocol])
    changed = w.session.answer_for(tasks[0].task_id)
    assert changed.supersedes == first.uid and changed.answer != first.answer
    assert w.current is tasks[2] and w.superseding is None
    assert w.session.answer_for(tasks[1].task_id).supersedes is None
    w.close()


def test_a_changed_earlier_answer_merges_and_counts(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # rate, change task 1 after task 3, finish, send back, merge: the results use the
    # changed answer; the project keeps both judgments; the file passes every check
    path = _sbs(rproject, tmp_path)
    w = _named(qtbot, path)
    tasks = w.session.tasks
    _keys(qtbot, w, *ANSWER["side_by_side"] * 3)
    old = w.session.answer_for(tasks[0].task_id)
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp, K.Key_PageUp)
    assert w.current is tasks[0]
    _keys(qtbot, w, *CHANGE["side_by_side"])
    assert w.current is tasks[3]
    _keys(qtbot, w, *ANSWER["side_by_side"] * (len(tasks) - 3))
    assert w.stack.currentWidget() is w.done_page
    w.close()
    _assert_returned_file_verifies(rproject, path)
    assert audit_file(path, rproject).findings == []  # answers and chain as the view makes them
    merge_file(rproject, path)
    merge_file(rproject, path)  # again: nothing new
    kept = rproject.conn.execute("SELECT uid, answer FROM rating_judgments WHERE task_id = ? "
                                 "ORDER BY seq", (tasks[0].task_id,)).fetchall()
    assert [uid for uid, _ in kept][0] == old.uid and len(kept) == 2
    blind = dict(rproject.conn.execute("SELECT token, model FROM rating_blinding"))
    rows = result_rows(rproject, "side_by_side")[1]
    assert len(rows) == len(tasks)
    t1 = [blind[tok] for tok, _ in tasks[0].options]
    assert [t1[0], t1[1], "b", "Ada", "s000", "preference"] in rows  # "right" won
    assert [t1[0], t1[1], "a", "Ada", "s000", "preference"] not in rows
    (summary,) = rater_summaries(rproject, "side_by_side")
    assert summary.changed == 1 and summary.completed == len(tasks)


def test_an_earlier_format_file_goes_back_and_merges(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project, _r1, r2 = th.legacy_copy(tmp_path / "legacy")  # format 1: no MAC chain
    try:
        w = _named(qtbot, r2)
        tasks = w.session.tasks
        assert not w.session.chained and len(tasks) >= 3
        _keys(qtbot, w, *ANSWER["side_by_side"] * 2, K.Key_PageUp, K.Key_PageUp,
              *CHANGE["side_by_side"])
        assert w.current is tasks[2]
        _keys(qtbot, w, *ANSWER["side_by_side"] * (len(tasks) - 2))
        w.close()
        assert read_returned(r2).problems == []
        merge_file(project, r2)
        summary = {r.slot: r for r in rater_summaries(project, "side_by_side")}
        assert summary["R2"].completed == len(tasks) and summary["R2"].changed == 1
    finally:
        project.close()


def test_gold_tasks_go_back_like_any_other(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "g", "side_by_side", raters=1,
                        sample_ids=("s000", "s001"), models=MODELS[:3], gold_rate=0.3)[0]
    gold = {tid for tid, g in rproject.conn.execute(
        "SELECT task_id, gold FROM rating_tasks") if g is not None}
    w = _named(qtbot, path)
    tasks = w.session.tasks
    assert gold and gold < {t.task_id for t in tasks}
    _keys(qtbot, w, *ANSWER["side_by_side"] * len(tasks))
    assert w.stack.currentWidget() is w.done_page
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for k in reversed(range(len(tasks))):  # back through every task from the done page
        qtbot.keyClick(w, K.Key_PageUp)
        assert w.current is tasks[k] and w.panel.choice == "left"
        texts = {lab.text().replace(f"task {k + 1} of", "task # of") for lab in w.findChildren(QLabel)
                 if lab.isVisible() and lab not in (w.prompt, w.timer_label)}
        seen[tasks[k].task_id in gold] |= texts
        assert not any("gold" in t.lower() or "known" in t.lower() for t in texts)
    assert seen[True] <= seen[False]  # a gold task shows nothing a regular one does not
    _keys(qtbot, w, *CHANGE["side_by_side"])  # the last task reopened: changed, done again
    assert w.stack.currentWidget() is w.done_page
    w.close()


def test_a_window_closed_mid_change_keeps_the_old_answer(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _sbs(rproject, tmp_path)
    w = _named(qtbot, path)
    tasks = w.session.tasks
    _keys(qtbot, w, *ANSWER["side_by_side"] * 3, K.Key_PageUp, K.Key_PageUp, K.Key_Right)
    assert w.current is tasks[1] and w.panel.choice == "right"
    w.close()
    again = _open(qtbot, path)
    assert again.current.task_id == tasks[3].task_id and again.superseding is None
    assert again.session.answer_for(tasks[1].task_id).answer == {"winner": "left"}
    assert len(again.session.judgments()) == 3
    again.close()


CHILD = r"""
import sys, time
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from core.rating.session_file import RatingSession
from ui.rate.rater import RaterWindow

app = QApplication([])
w = RaterWindow(RatingSession.open(sys.argv[1]))
w.show()
QTest.keyClicks(w.name_edit, "Kim")
QTest.keyClick(w.name_edit, Qt.Key.Key_Return)
K = Qt.Key
for key in (K.Key_Left, K.Key_Return) * 3 + (K.Key_PageUp, K.Key_PageUp, K.Key_Right):
    QTest.keyClick(w, key)
print("changing", w.current.task_id, w.panel.choice, flush=True)
time.sleep(60)
"""


def test_a_kill_mid_change_keeps_the_old_answer(rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _sbs(rproject, tmp_path)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline() if child.stdout else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    session = RatingSession.open(path)
    second = session.tasks[1]
    assert line.split() == ["changing", second.task_id, "right"]
    assert session.answer_for(second.task_id).answer == {"winner": "left"}
    assert len(session.judgments()) == 3 and session.next_task() is session.tasks[3]
    assert not Path(f"{path}-journal").exists()
    session.close()
    _assert_returned_file_verifies(rproject, path)


def test_two_windows_on_one_file_cannot_both_change_a_task(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path) -> None:
    path = _sbs(rproject, tmp_path)
    w1 = _named(qtbot, path)
    tasks = w1.session.tasks
    _keys(qtbot, w1, *ANSWER["side_by_side"] * 2)
    w2 = _open(qtbot, path)
    for w in (w1, w2):
        _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp)
        assert w.current.task_id == tasks[0].task_id
    _keys(qtbot, w2, *CHANGE["side_by_side"])
    _keys(qtbot, w1, K.Key_Down, K.Key_Return)
    assert "another window" in w1.status.text() and w1.current is tasks[0]
    assert w1.superseding is not None  # the rater sees why, and may close
    judgments = RatingSession.open(path).judgments()
    assert len(judgments) == 3 and judgments[-1].answer == {"winner": "right"}
    w1.close()
    w2.close()


def test_a_quick_change_of_an_earlier_answer_is_timed_with_it_and_held(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    now = [1000.0]
    path = _sbs(rproject, tmp_path, min_time_s=4.0, penalty_s=30.0)
    w = _named(qtbot, path, TaskClock(lambda: now[0]))
    tasks = w.session.tasks
    for wait in (6.0, 1.0, 6.0):  # task 2 answered too quickly; its hold ended
        now[0] += wait
        _keys(qtbot, w, *ANSWER["side_by_side"])
        if w.penalty_left_ms:
            qtbot.keyClick(w, K.Key_PageUp)  # during the hold: reopens when it ends
            assert w.current is tasks[1] and w.superseding is None
            w.penalty_left_ms = 1
            qtbot.waitUntil(lambda: w.superseding is not None, timeout=3000)
            assert w.current is tasks[1]
            qtbot.keyClick(w, K.Key_Escape)
    assert w.current is tasks[3]
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp, K.Key_PageUp)
    now[0] += 1.0
    _keys(qtbot, w, *CHANGE["side_by_side"])  # 6 s + 1 s: not early
    changed = w.session.answer_for(tasks[0].task_id)
    assert (changed.time_ms, changed.penalty_ms) == (7000, 0) and w.current is tasks[3]
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp)
    now[0] += 1.0
    _keys(qtbot, w, *CHANGE["side_by_side"])  # 1 s + 1 s: still early, held back
    again = w.session.answer_for(tasks[1].task_id)
    assert (again.time_ms, again.penalty_ms) == (2000, 30000) and w.penalty_left_ms > 0
    assert w.current is tasks[1]
    w.penalty_left_ms = 1
    qtbot.waitUntil(lambda: w.current is tasks[3], timeout=3000)
    w.close()


def test_a_hold_after_an_early_change_outlives_the_window(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # ADR 204: closing the window during the hold and opening the file again does not
    # skip what is left of it, also when the early answer changed an earlier task
    now = [1000.0]
    path = _sbs(rproject, tmp_path, min_time_s=4.0, penalty_s=30.0)
    w = _named(qtbot, path, TaskClock(lambda: now[0]))
    tasks = w.session.tasks
    for _ in range(3):
        now[0] += 1.0
        _keys(qtbot, w, *ANSWER["side_by_side"])
        w.penalty_left_ms = 0  # as when each hold is over
        w.advance()
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp, K.Key_PageUp)
    now[0] += 1.0
    _keys(qtbot, w, *CHANGE["side_by_side"])
    assert w.penalty_left_ms > 0 and w.current is tasks[0]
    w.close()
    again = _open(qtbot, path)
    assert again.current.task_id == tasks[0].task_id and again.penalty_left_ms > 0
    assert again.panel.choice == "right" and again.superseding is None
    _keys(qtbot, again, K.Key_Left, K.Key_Return)  # held: nothing is saved
    assert len(again.session.judgments()) == 4
    again.penalty_left_ms = 1
    qtbot.waitUntil(lambda: again.current.task_id == tasks[3].task_id, timeout=3000)
    again.close()


def test_the_same_answer_given_again_writes_nothing_and_is_no_change(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    """Going back to look and pressing Enter on the answer as it was records nothing: no
    judgment, no 'Changed' in the lead's table, no penalty hold; a real change still is one."""
    path = _sbs(rproject, tmp_path)
    w = _named(qtbot, path)
    tasks = w.session.tasks
    _keys(qtbot, w, *ANSWER["side_by_side"] * 2)
    before = w.session.judgments()
    _keys(qtbot, w, K.Key_PageUp, K.Key_PageUp, K.Key_Return)  # task 1 as it was: Enter
    assert w.current is tasks[2] and w.superseding is None and w.penalty_left_ms == 0
    assert w.session.judgments() == before
    qtbot.keyClick(w, K.Key_Backspace)  # "change my last answer", given unchanged
    qtbot.keyClick(w, K.Key_Return)
    assert w.session.judgments() == before and w.current is tasks[2]
    _keys(qtbot, w, K.Key_PageUp, *CHANGE["side_by_side"])  # a real change is recorded
    assert len(w.session.judgments()) == len(before) + 1
    w.close()
    again = RatingSession.open(path)  # the core says so too
    try:
        first = again.answer_for(tasks[0].task_id)
        assert first is not None
        same = again.submit(tasks[0].task_id, dict(first.answer), time_ms=5,
                            supersedes=first.uid)
        assert same == first and len(again.judgments()) == len(before) + 1
    finally:
        again.close()
