"""Windows open inside the screen: a 1280×720 laptop gets no window taller than it."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QRect, QSettings  # noqa: E402
from PySide6.QtGui import QScreen  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from ui.widgets.screen import SHARE, fitted_size  # noqa: E402


@pytest.fixture
def small_screen(monkeypatch: Any) -> QRect:
    free = QRect(0, 0, 1280, 690)  # 1280×720 less a 30-pixel panel
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: free)
    return free


def test_fitted_size_shrinks_only_what_does_not_fit(qapp: Any, small_screen: QRect) -> None:
    assert fitted_size(640, 480) == (640, 480)
    assert fitted_size(1400, 900) == (int(1280 * SHARE), int(690 * SHARE))


def test_the_main_window_first_opens_inside_a_small_screen(qtbot: Any, tmp_path: Any,
                                                           small_screen: QRect) -> None:
    from app.main_window import MainWindow

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path / "settings"))
    QSettings().clear()  # a first start: no saved geometry
    window = MainWindow()
    qtbot.addWidget(window)
    try:
        assert window.height() <= small_screen.height() and window.width() <= 1280
    finally:
        window.runner.shutdown()


def test_the_workspace_list_is_as_wide_as_its_longest_title(main_window: Any) -> None:
    from PySide6.QtGui import QFont, QFontMetrics

    from ui.workspaces import WORKSPACES

    nav = main_window.nav
    font = QFont(nav.font())
    font.setPointSizeF(11.0)
    widest = max(QFontMetrics(font).horizontalAdvance(w.title) for w in WORKSPACES)
    assert widest + 2 * 12 <= nav.width() < 170  # every title fits; the pages get the rest
    assert "outline: 0" in nav.styleSheet()  # no focus box drawn inside the highlight
    for row in range(nav.count()):  # no title is elided
        assert nav.visualItemRect(nav.item(row)).width() >= QFontMetrics(font).horizontalAdvance(
            nav.item(row).text()) + 2 * 12


def test_pages_that_need_a_project_offer_to_make_one(main_window: Any, demo_path: Any,
                                                     qtbot: Any, monkeypatch: Any) -> None:
    """Anonymize, Rate, Metrics and Analyze said 'open or create a project first (File
    menu)' with no button to do it; now they have New Demo / New / Open until one opens."""
    window = main_window
    asked: list[str] = []
    monkeypatch.setattr(window.projects, "new_demo", lambda: asked.append("demo"))
    for key in ("anonymize", "rate", "metrics", "analyze"):
        page = window.show_workspace(key)
        row = page.empty.project_row
        assert row.isVisible(), key
        texts = [b.text() for b in row.findChildren(QPushButton)]
        assert texts == ["New Demo Project…", "New Project…", "Open Project…"], key
    row.findChildren(QPushButton)[0].click()  # Analyze → New Demo Project…
    assert asked == ["demo"]
    assert window.open_project(demo_path)
    for key in ("anonymize", "rate", "metrics", "analyze"):
        assert not window.pages[key].empty.project_row.isVisibleTo(window.pages[key].empty)


def test_the_status_bar_counts_follow_a_new_sample(main_window: Any, demo_path: Any,
                                                   qtbot: Any) -> None:
    """Posts → New Sample from Post added a sample the status bar did not count (the list
    said 116, the status bar 115)."""
    window = main_window
    assert window.open_project(demo_path)
    curate = window.show_workspace("curate")
    before = window.project_label.text()
    post = window.project.conn.execute(
        "SELECT id FROM posts WHERE id NOT IN (SELECT post_id FROM samples WHERE post_id "
        "IS NOT NULL) AND parent_id IS NULL LIMIT 1").fetchone()[0]
    assert curate.proposals.new_sample_from_post(post)
    n = window.project.conn.execute("SELECT count(*) FROM samples").fetchone()[0]
    qtbot.waitUntil(lambda: f"{n:,} samples" in window.project_label.text(), timeout=5_000)
    assert window.project_label.text() != before


def test_the_jobs_panel_leaves_the_window_inside_a_small_screen(main_window: Any, qtbot: Any,
                                                                small_screen: QRect,
                                                                demo_path: Any) -> None:
    """New Demo Project… with no project open shows the Jobs panel by itself: the start
    pages' text could not shrink, so the window grew to 804 pixels (off a 1280×720
    laptop).  Every workspace, with and without a project, leaves room for a title bar."""
    from PySide6.QtWidgets import QApplication

    from ui.workspaces import WORKSPACES

    room = small_screen.height() - 30  # less the window's title bar
    main_window.resize(1024, room)
    main_window.show_jobs()
    qtbot.waitUntil(main_window.jobs_dock.isVisible)
    for opened in (False, True):
        if opened:
            assert main_window.open_project(demo_path)
        for info in WORKSPACES:
            main_window.show_workspace(info.key)
            QApplication.processEvents()
            assert main_window.minimumSizeHint().height() <= room, (info.key, opened)
            assert main_window.height() <= room, (info.key, opened)
