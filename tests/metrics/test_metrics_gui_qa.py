"""Metrics workspace QA: read-only projects, sorting that survives a refresh, export errors."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from metrics_helpers import add_sample, gradient_image, yellow_tint  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.store import Project  # noqa: E402
from ui.metrics.workspace import MetricsWorkspace  # noqa: E402


def _project(tmp_path: Path, n: int = 4, outputs: bool = True) -> Path:
    path = tmp_path / "m.winnow"
    with Project.create(path) as p:
        for k in range(n):
            base = gradient_image(seed=k)
            add_sample(p, f"s{k:02d}", f"edit {k}", [base],
                       {"tinted": yellow_tint(base), "same": base.copy()} if outputs else {})
    return path


def _page(window: MainWindow, qtbot) -> MetricsWorkspace:
    index = next(i for i in range(window.nav.count()) if window.nav.item(i).text() == "Metrics")
    qtbot.keyClick(window, Qt.Key.Key_1 + index, Qt.KeyboardModifier.ControlModifier)
    page = window.stack.currentWidget()
    assert isinstance(page, MetricsWorkspace)
    return page


def _run(page: MetricsWorkspace, qtbot) -> None:
    job = page.run()
    assert job is not None
    qtbot.waitUntil(lambda: job.outcome != "running" and page.job is None, timeout=90_000)
    assert job.outcome == "done"


def test_sort_order_survives_refresh_and_keeps_the_selected_row(main_window, qtbot,
                                                                 tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path))
    _run(page, qtbot)
    header = page.table.horizontalHeader()
    value_x = header.sectionViewportPosition(3) + header.sectionSize(3) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(value_x, header.height() // 2))
    values = [r.value for r in page.model.rows]
    assert values == sorted(values) or values == sorted(values, reverse=True)
    order = header.sortIndicatorOrder()
    expected = sorted(values, reverse=order == Qt.SortOrder.DescendingOrder)

    # a refresh (here: showing not-applicable rows again and hiding them) keeps the order
    page.hide_na.setChecked(False)
    page.hide_na.setChecked(True)
    assert [r.value for r in page.model.rows] == expected

    # select a row, re-sort by sample: the same result stays selected and drilled into
    rect = page.table.visualRect(page.model.index(0, 0))
    qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    chosen = page.model.rows[0]
    sample_x = header.sectionViewportPosition(0) + header.sectionSize(0) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(sample_x, header.height() // 2))
    current = page.table.currentIndex()
    assert page.model.rows[current.row()] is chosen
    selected = page.table.selectionModel().selectedRows()
    assert [page.model.rows[i.row()] for i in selected] == [chosen]


def test_metric_column_sorts_by_the_title_it_shows(qtbot) -> None:
    from core.metrics.store import ResultRow
    from ui.metrics.results_model import ResultsModel

    def row(metric: str) -> ResultRow:
        return ResultRow(sample_id="s", model="m", metric=metric, value=1.0, status="ok",
                         error=None, version=1, params={}, params_hash="h",
                         computed_at="now", details={}, seconds=None)

    model = ResultsModel()
    model.set_rows([row("a_metric"), row("b_metric")], {"a_metric": "Zeta", "b_metric": "Alpha"})
    model.sort(2, Qt.SortOrder.AscendingOrder)
    shown = [model.data(model.index(k, 2)) for k in range(model.rowCount())]
    assert shown == ["Alpha", "Zeta"]
