"""Metrics results a user can act on: what to do when there are none, which way is better,
stepping through the drill-down, jumping to Curate, and runs that failed reading as failed
(issue #14 items 9 and 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from test_metrics_gui_qa import _project  # noqa: E402  (the same small project)

from app.main_window import MainWindow  # noqa: E402
from core.metrics.colour_shift import ColourShift  # noqa: E402
from core.selection import SampleFilter  # noqa: E402
from ui.metrics.results_model import COLUMNS  # noqa: E402
from ui.metrics.workspace import MetricsWorkspace  # noqa: E402


def _open(window: MainWindow, tmp_path: Path) -> MetricsWorkspace:
    assert window.open_project(_project(tmp_path, n=3))
    page = window.show_workspace("metrics")
    assert isinstance(page, MetricsWorkspace)
    return page


def _run(page: MetricsWorkspace, qtbot):  # type: ignore[no-untyped-def]
    job = page.run()
    assert job is not None
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    return job


def test_the_summary_says_what_to_do_and_which_way_is_better(main_window, qtbot,
                                                             tmp_path) -> None:
    page = _open(main_window, tmp_path)
    text = page.summary.text()
    assert page.model.rowCount() == 0
    assert "Double-click" not in text and "press Run (Ctrl+Return)" in text
    _run(page, qtbot)
    assert page.model.rowCount() > 0
    assert "Double-click a row" in page.summary.text()
    assert "↓ lower is better" in page.summary.text()
    better = COLUMNS.index("Better")
    assert page.model.headerData(better, Qt.Orientation.Horizontal) == "Better"
    assert {page.model.data(page.model.index(r, better))
            for r in range(page.model.rowCount())} == {"↓ lower"}  # colour shift
    main_window.context.set_selection(SampleFilter(ids=("nothing",)))
    assert "No samples selected" in page.summary.text()


def test_drilldown_steps_with_keys_and_buttons(main_window, qtbot, tmp_path) -> None:
    page = _open(main_window, tmp_path)
    _run(page, qtbot)
    rows = page.model.rowCount()
    assert rows >= 3
    assert page.act_next.isEnabled() and not page.act_previous.isEnabled()
    rect = page.table.visualRect(page.model.index(0, 0))
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.tabs.currentWidget() is page.drill
    first = page.drill.current
    assert not page.drill.previous.isEnabled() and page.drill.next.isEnabled()
    qtbot.keyClick(page.drill, Qt.Key.Key_J)
    assert page.table.currentIndex().row() == 1
    row1 = page.model.rows[1]
    assert page.drill.current == (row1.sample_id, row1.model)
    qtbot.mouseClick(page.drill.previous, Qt.MouseButton.LeftButton)
    assert page.table.currentIndex().row() == 0 and page.drill.current == first
    qtbot.keyClick(page.drill, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert page.table.currentIndex().row() == 1
    for _ in range(rows + 2):  # stepping past the end stays on the last row
        qtbot.mouseClick(page.drill.next, Qt.MouseButton.LeftButton) \
            if page.drill.next.isEnabled() else page.step(1)
    assert page.table.currentIndex().row() == rows - 1
    assert not page.drill.next.isEnabled() and not page.act_next.isEnabled()


def test_show_in_curate_selects_the_sample_even_when_filtered_out(main_window, qtbot,
                                                                  tmp_path) -> None:
    page = _open(main_window, tmp_path)
    _run(page, qtbot)
    target = page.model.rows[-1].sample_id
    page.step(1)
    while page.drill.current[0] != target:
        page.step(1)
    curate = main_window.pages["curate"]
    others = tuple(sorted({r.sample_id for r in page.model.rows} - {target}))
    curate.apply_filter(SampleFilter(ids=others))  # Curate's list hides the sample
    main_window.show_workspace("metrics")
    assert curate.model.row_of(target) is None
    qtbot.mouseClick(page.drill.curate, Qt.MouseButton.LeftButton)
    assert main_window.stack.currentWidget() is curate
    assert curate.current_id() == target
    assert curate.model.row_of(target) is not None


def test_a_run_in_which_every_metric_failed_reads_as_failed(main_window, qtbot, tmp_path,
                                                            monkeypatch) -> None:
    def broken(self, settings):  # type: ignore[no-untyped-def]
        raise RuntimeError("the colour model is missing")

    monkeypatch.setattr(ColourShift, "setup", broken)
    page = _open(main_window, tmp_path)
    job = _run(page, qtbot)
    assert job.outcome == "done"  # the function returned…
    assert job.state.verdict == "failed"  # …but nothing was computed
    assert "the colour model is missing" in job.state.failures[0]
    row = next(r for r in main_window.jobs_panel.rows if r.job is job)
    row.refresh()
    assert row.verdict() == "failed"
    assert row.status.text().startswith("Failed — every item failed")
    assert "Finished" not in row.status.text() and row.bar.format() == "failed"
    assert page.status.text().startswith("Failed")
