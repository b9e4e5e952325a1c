"""Drag-to-rank in the full-ranking rater view, driven by real mouse events (pytest-qt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import make_session

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from core.rating.merge import merge_file  # noqa: E402
from core.rating.results import result_rows  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from ui.rate.rank_strip import groups_from_ranks, move_in_groups  # noqa: E402
from ui.rate.rater import RaterWindow  # noqa: E402

K = Qt.Key
LEFT = Qt.MouseButton.LeftButton
TWO = ("s000", "s001")


def _window(qtbot, path: Path, name: str) -> RaterWindow:  # type: ignore[no-untyped-def]
    w = RaterWindow(RatingSession.open(path))
    qtbot.addWidget(w)
    w.resize(1200, 820)
    w.show()
    qtbot.waitExposed(w)
    qtbot.keyClicks(w.name_edit, name)
    qtbot.keyClick(w.name_edit, K.Key_Return)
    assert w.stack.currentWidget() is w.task_page
    return w


def _centre(strip, item: int) -> QPoint:  # type: ignore[no-untyped-def]
    return strip.card_rects()[item].center()


def _drag(qtbot, strip, item: int, to: QPoint, *, release: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Press on ``item``'s card, move there in steps (as a hand would), release."""
    start = _centre(strip, item)
    qtbot.mousePress(strip, LEFT, pos=start)
    steps = 8
    for k in range(1, steps + 1):
        qtbot.mouseMove(strip, start + (to - start) * (k / steps))
    if release:
        qtbot.mouseRelease(strip, LEFT, pos=to)


def _is_accent(colour: QColor) -> bool:
    from PySide6.QtGui import QGuiApplication, QPalette

    accent = QGuiApplication.palette().color(QPalette.ColorRole.Highlight)  # the theme's
    return (abs(colour.red() - accent.red()) < 30 and abs(colour.green() - accent.green()) < 30
            and abs(colour.blue() - accent.blue()) < 30)


def _blind(project) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return dict(project.conn.execute("SELECT token, model FROM rating_blinding"))


def _ranking_of(project, rater: str, sample: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    _, rows = result_rows(project, "ranking")
    return {m: r for who, item, m, r in rows if who == rater and item == sample}


def _sample(project, task_id: str) -> str:  # type: ignore[no-untyped-def]
    return project.conn.execute("SELECT sample_id FROM rating_tasks WHERE task_id = ?",
                                (task_id,)).fetchone()[0]


def test_drag_first_output_to_third_place_then_submit(qtbot, rproject, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    w = _window(qtbot, path, "Ada")
    task, strip = w.current, w.panel.strip
    assert strip.isVisible() and strip.groups == [[0], [1], [2], [3]]
    assert strip.letters == ["A", "B", "C", "D"] and not strip.thumbs[0].isNull()
    following = w.session.following(task)  # its thumbnails are made ahead (prefetch)
    qtbot.waitUntil(lambda: all(sha in w.panel._thumbs for _, sha in following.options),
                    timeout=3000)
    # A (position 1) to position 3: between C and D, a blue bar marks the gap
    gap = QPoint(strip.gap_x(3), strip.height() // 2)
    _drag(qtbot, strip, 0, gap, release=False)
    assert strip.dragging and strip.target == ("gap", 3)
    shot = strip.grab().toImage()
    assert _is_accent(shot.pixelColor(strip.gap_x(3), strip.height() // 2))
    assert not _is_accent(shot.pixelColor(strip.gap_x(1), strip.height() // 2))
    qtbot.mouseRelease(strip, LEFT, pos=gap)
    assert not strip.dragging and strip.target is None
    assert w.panel.ranks == {1: 1, 2: 2, 0: 3, 3: 4}
    assert strip.groups == [[1], [2], [0], [3]]
    assert w.panel.tiles[0].caption.text() == "A   —   rank 3"
    assert w.session.progress()[0] == 0  # nothing saved before the rater submits
    qtbot.keyClick(w, K.Key_Return)
    assert w.session.answer_for(task.task_id) is not None and w.current is not task
    assert strip.groups == [[0], [1], [2], [3]] and strip.rank_text == {}  # next task
    qtbot.keyClick(w, K.Key_Backspace)  # changing the last answer shows its order
    assert w.current is task and strip.groups == [[1], [2], [0], [3]]
    qtbot.keyClick(w, K.Key_Escape)
    w.close()
    merge_file(rproject, path)
    blind = _blind(rproject)
    a, b, c, d = (blind[tok] for tok, _ in task.options)
    assert _ranking_of(rproject, "Ada", _sample(rproject, task.task_id)) == {
        b: 1, c: 2, a: 3, d: 4}


def test_while_the_next_task_is_held_back_the_strip_ignores_drags(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO,
                        min_time_s=30.0, penalty_s=5.0)[0]
    w = _window(qtbot, path, "Eve")
    task, strip = w.current, w.panel.strip
    _drag(qtbot, strip, 0, QPoint(strip.gap_x(4), strip.height() // 2))
    qtbot.mouseClick(w.panel.submit_button, LEFT)  # too quick: saved, next task held
    assert w.session.answer_for(task.task_id).answer["ranks"] and w.penalty_left_ms > 0
    assert not strip.isEnabled() and not w.panel.submit_button.isEnabled()
    before = dict(w.panel.ranks)
    _drag(qtbot, strip, 1, QPoint(strip.gap_x(0), strip.height() // 2))
    assert w.panel.ranks == before and w.current is task
    w.close()


def test_drag_and_keys_edit_the_same_ranks_click_focuses_release_outside_cancels(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    w = _window(qtbot, path, "Bo")
    strip, panel = w.panel.strip, w.panel
    qtbot.keyClick(w, K.Key_2)  # A gets rank 2 by key: it leads the strip, the rest unranked
    assert strip.groups == [[0], [1], [2], [3]] and strip.rank_text == {0: "2"}
    # D to the front: every output now ranked by its place
    _drag(qtbot, strip, 3, QPoint(strip.gap_x(0), strip.height() // 2))
    assert panel.ranks == {3: 1, 0: 2, 1: 3, 2: 4} and panel.focus == 3
    assert panel.tiles[3].caption.text() == "D   —   rank 1"
    # keys go on from there: D (focused) gets 3, so B, which had 3, loses it (no ties)
    qtbot.keyClick(w, K.Key_3)
    assert panel.ranks == {3: 3, 0: 2, 2: 4} and panel.focus == 1  # focus to the unranked
    assert strip.groups == [[0], [3], [2], [1]] and 1 not in strip.rank_text
    # a click without moving only focuses that output (as ←/→ would)
    qtbot.mouseClick(strip, LEFT, pos=_centre(strip, 2))
    assert panel.focus == strip.focus == 2 and panel.ranks == {3: 3, 0: 2, 2: 4}
    assert "palette(highlight)" in panel.tiles[2].styleSheet()  # the theme's accent
    assert "palette(highlight)" not in panel.tiles[1].styleSheet()
    # released far away: the drag is cancelled, nothing changes
    _drag(qtbot, strip, 0, QPoint(strip.width() // 2, -400))
    assert panel.ranks == {3: 3, 0: 2, 2: 4} and not strip.dragging
    qtbot.keyClick(w, K.Key_Return)  # still incomplete: refused, nothing saved
    assert w.session.progress()[0] == 0 and "1 left" in w.status.text()
    w.close()


def test_drop_onto_a_card_ties_when_the_session_allows_and_the_button_submits(  # type: ignore[no-untyped-def]
        qtbot, rproject, tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO,
                        allow_ties=True)[0]
    w = _window(qtbot, path, "Cy")
    task, strip, panel = w.current, w.panel.strip, w.panel
    on_b = _centre(strip, 1)
    _drag(qtbot, strip, 3, on_b, release=False)
    assert strip.target == ("tie", 1)
    shot = strip.grab().toImage()
    box = strip.group_rect(1)  # a "tie" label marks the card it would join
    assert _is_accent(shot.pixelColor(box.center().x() - 19, box.top() + 8))
    assert not _is_accent(shot.pixelColor(strip.gap_x(1), strip.height() // 2))
    qtbot.mouseRelease(strip, LEFT, pos=on_b)
    assert strip.groups == [[0], [1, 3], [2]]
    assert panel.ranks == {0: 1, 1: 2, 3: 2, 2: 4}
    assert strip.rank_text == {0: "1", 1: "2", 3: "2", 2: "4"}
    qtbot.mouseClick(panel.submit_button, LEFT)
    assert w.session.answer_for(task.task_id) is not None
    assert w.session.progress()[0] == 1
    w.close()
    merge_file(rproject, path)
    blind = _blind(rproject)
    a, b, c, d = (blind[tok] for tok, _ in task.options)
    assert _ranking_of(rproject, "Cy", _sample(rproject, task.task_id)) == {
        a: 1, b: 2, d: 2, c: 4}


def test_without_ties_a_drop_onto_a_card_moves_it_instead(qtbot, rproject,  # type: ignore[no-untyped-def]
                                                          tmp_path: Path) -> None:
    path = make_session(rproject, tmp_path / "o", "ranking", raters=1, sample_ids=TWO)[0]
    w = _window(qtbot, path, "Di")
    strip = w.panel.strip
    _drag(qtbot, strip, 3, _centre(strip, 1) + QPoint(-5, 0))  # left half of B's card
    assert strip.groups == [[0], [3], [1], [2]]
    assert w.panel.ranks == {0: 1, 3: 2, 1: 3, 2: 4}
    assert len(set(w.panel.ranks.values())) == 4
    w.close()


def test_order_helpers() -> None:
    assert groups_from_ranks({2: 1, 0: 1, 3: 3}, 5) == [[0, 2], [3], [1], [4]]
    groups = [[0], [1, 3], [2]]
    assert move_in_groups(groups, 3, ("gap", 0)) == [[3], [0], [1], [2]]
    assert move_in_groups(groups, 0, ("gap", 3)) == [[1, 3], [2], [0]]
    assert move_in_groups(groups, 2, ("tie", 0)) == [[0, 2], [1, 3]]
    assert move_in_groups(groups, 1, ("tie", 1)) == groups  # onto its own group
    assert move_in_groups([[0], [1]], 0, ("gap", 1)) == [[0], [1]]  # next to itself
