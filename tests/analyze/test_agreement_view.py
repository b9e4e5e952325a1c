"""Analyze → Curator Agreement…: the window reads well on a 1280×720 and a 1440×900 screen
(one summary line of facts, the symbols explained on their own line, tables as tall as their
rows, the window inside the screen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import QRect  # noqa: E402
from PySide6.QtGui import QScreen  # noqa: E402

from core.teamwork.agreement import Agreement  # noqa: E402
from core.teamwork.merge import merge_packages  # noqa: E402
from tests.teamwork.team_helpers import Curator, make_project, package_path, split  # noqa: E402
from ui.analyze.agreement_view import AgreementWindow, summary_text  # noqa: E402
from ui.context import AppContext  # noqa: E402


@pytest.fixture
def merged(tmp_path: Path) -> Any:
    project = make_project(tmp_path)
    report = split(project, tmp_path / "out")
    with Curator(package_path(report, "Alice")) as c:
        c.label("s2", "Benchmark")
        c.label("s3", "Trash")
    with Curator(package_path(report, "Bob")) as c:
        c.label("s1", "Analysis")
        c.label("s2", "Benchmark")
    merge_packages(project, [package_path(report, "Alice"), package_path(report, "Bob")])
    yield project
    project.close()


def _window(qtbot: Any, project: Any) -> AgreementWindow:
    context = AppContext()
    context.project = project
    window = AgreementWindow(context)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.mark.parametrize("screen", [(1280, 720), (1440, 900)])
def test_the_window_fits_the_screen_and_its_summary_is_one_line(
        qtbot: Any, merged: Any, monkeypatch: Any, screen: tuple[int, int]) -> None:
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(0, 0, *screen))
    window = _window(qtbot, merged)
    assert window.width() <= screen[0] * 0.92 and window.height() <= screen[1] * 0.92
    summary = window.summary
    assert summary.text() == ("5 samples curated by two curators   ·   2 of 2 packages "
                              "merged   ·   0 conflicts still open")
    assert "(s)" not in summary.text() and "α" not in summary.text()
    assert "Krippendorff" in window.legend.text() and window.legend.isVisible()
    line = summary.fontMetrics().lineSpacing()
    for label in (summary, window.legend):  # neither wraps at the window's width
        assert label.heightForWidth(label.width()) < 2 * line, label.text()
    for key, table in window.tables.items():  # no empty band under the last row
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        assert table.height() == (rows + table.horizontalHeader().height()
                                  + 2 * table.frameWidth()), key
    assert window.chart is not None and window.chart.isVisible()


def test_singular_counts_and_a_project_without_a_split(qtbot: Any, tmp_path: Path) -> None:
    class One:
        overlap_samples, packages_merged, curators, open_conflicts = 1, 1, ["A"], 1

    assert summary_text(cast(Agreement, One())) == (
        "1 sample curated by two curators   ·   1 of 1 package merged   ·   1 conflict "
        "still open")
    project = make_project(tmp_path)
    try:
        window = _window(qtbot, project)
        assert "no split yet" in window.summary.text() and not window.legend.isVisible()
        assert window.tables == {}
    finally:
        project.close()


def test_switching_splits_leaves_no_widget_of_the_last_one(qtbot: Any, merged: Any) -> None:
    window = _window(qtbot, merged)
    before = window.body.count()
    window.show_split()
    window.show_split()
    assert window.body.count() == before  # tables, note, chart and the stretch, once
