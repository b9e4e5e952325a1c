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


def test_read_only_project_shows_results_but_cannot_run(main_window, qtbot, tmp_path) -> None:
    path = _project(tmp_path)
    page = _page(main_window, qtbot)
    assert main_window.open_project(path)
    _run(page, qtbot)
    stored = page.model.rowCount()
    assert stored > 0
    main_window.close_project()

    assert main_window.open_project(path, readonly=True)
    assert page.model.rowCount() == stored  # stored results still show
    assert not page.run_button.isEnabled() and not page.act_run.isEnabled()
    assert page.act_export.isEnabled()
    assert "Read-only" in page.selection_label.text()
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert page.job is None and not main_window.runner.jobs[1:]  # no failing job started
    assert page.run() is None  # even a direct call is refused with a message
    assert "read-only" in main_window._dialogs[-1].text()

    main_window.close_project()  # reopened for writing, Run comes back
    assert main_window.open_project(path)
    assert page.run_button.isEnabled() and page.act_run.isEnabled()
    assert "Read-only" not in page.selection_label.text()


def test_sort_order_survives_refresh_and_keeps_the_selected_row(main_window, qtbot,
                                                                 tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path))
    _run(page, qtbot)
    from ui.metrics.results_model import VALUE

    header = page.table.horizontalHeader()
    value_x = header.sectionViewportPosition(VALUE) + header.sectionSize(VALUE) // 2
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


def test_export_to_a_path_that_cannot_be_written_is_a_message(main_window, qtbot,
                                                                tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path, n=1))
    _run(page, qtbot)
    blocker = tmp_path / "notes.txt"  # a file where the export wants a folder
    blocker.write_text("keep me")
    target = blocker / "out.csv"
    assert page.export_to(str(target)) is None
    text = main_window._dialogs[-1].text()
    assert str(target) in text and main_window._dialogs[-1].windowTitle() == "Export failed"
    assert blocker.read_text() == "keep me"


def test_export_with_no_results_says_so_and_writes_nothing(main_window, qtbot, monkeypatch,
                                                            tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path, n=1))
    statuses: list[str] = []
    monkeypatch.setattr(page.context, "status", lambda text, *a: statuses.append(text))
    for name in ("none.csv", "none.parquet"):
        assert page.export_to(str(tmp_path / name)) == 0
        assert not (tmp_path / name).exists()
        box = main_window._dialogs[-1]
        assert box.windowTitle() == "Nothing to export"
        assert "no metric results" in box.text().lower() and "Run" in box.text()
    assert not any(s.startswith("Wrote") for s in statuses)
    asked: list[object] = []  # the menu action says so before asking for a file name
    monkeypatch.setattr("ui.metrics.workspace.QFileDialog.getSaveFileName",
                        lambda *a, **k: asked.append(a) or ("", ""))
    page.act_export.trigger()
    assert asked == [] and main_window._dialogs[-1].windowTitle() == "Nothing to export"


def test_no_outputs_points_to_the_import_that_exists(main_window, qtbot, tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path, outputs=False))
    text = page.selection_label.text()
    assert "No output images yet" in text
    assert "Rate → Import Model Outputs…" in text
    labels = [a.text().replace("&", "") for m in main_window.menuBar().actions()
              if m.menu() is not None for a in m.menu().actions()]
    assert "Import Model Outputs…" in labels


def test_drilldown_forgets_the_pair_of_a_closed_project(main_window, qtbot, tmp_path) -> None:
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path))
    _run(page, qtbot)
    rect = page.table.visualRect(page.model.index(0, 0))
    qtbot.mouseDClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.drill.current is not None and page.drill.table.rowCount() > 0
    other = tmp_path / "other"
    other.mkdir()
    assert main_window.open_project(_project(other, n=1, outputs=False))
    assert page.drill.current is None
    assert page.drill.table.rowCount() == 0 and "Select a result" in page.drill.title.text()


def test_drilldown_says_why_an_image_is_not_shown(qtbot, tmp_path) -> None:
    """A text-to-image sample's input, or an output whose file vanished from disk, left
    an empty framed box: the message was set, then cleared by setPixmap(QPixmap())."""
    from ui.metrics.drilldown import DrillDown

    with Project.create(tmp_path / "d.winnow") as p:
        add_sample(p, "t2i", "a bicycle", [], {"gone": gradient_image(seed=3)})
        drill = DrillDown()
        qtbot.addWidget(drill)
        drill.resize(900, 600)
        drill.show()
        qtbot.waitExposed(drill)
        drill.show_pair(p, "t2i", "gone", [], {})
        assert drill.input_panel.image.text() == "(no input: text-to-image sample)"
        assert drill.output_panel._pixmap is not None and drill.output_panel.image.text() == ""
        for image in p.assets.root.rglob("*.png"):
            image.unlink()  # the output's file vanished from disk
        drill.show_pair(p, "t2i", "gone", [], {})
        assert drill.output_panel._pixmap is None
        assert "is missing from the project's assets" in drill.output_panel.image.text()
        drill.resize(700, 500)  # a resize keeps the message
        qtbot.wait(10)
        assert drill.input_panel.image.text() == "(no input: text-to-image sample)"


def test_metric_titles_fit_and_long_names_have_their_tooltip(main_window, qtbot) -> None:
    """'Structure distance (DINO)' showed as 'Structure dis…' (the column was sized for
    'Colour shift'), and an elided model name had no tooltip to read it whole."""
    from core.metrics.registry import all_metrics
    from core.metrics.store import ResultRow
    from ui.metrics.results_model import COLUMNS

    page = _page(main_window, qtbot)
    header, metrics = page.table.horizontalHeader(), page.table.fontMetrics()
    column = COLUMNS.index("Metric")
    for m in all_metrics():
        if not m.is_judge:
            assert metrics.horizontalAdvance(m.title) < header.sectionSize(column)
    name = "a-very-long-model-name-" * 5
    page.model.set_rows([ResultRow("s", name, "structure_distance", "ok", 1.0, {}, None, 1,
                                   {}, "h", "now", 0.1)], page.titles, page.higher)
    tip = Qt.ItemDataRole.ToolTipRole
    assert page.model.data(page.model.index(0, COLUMNS.index("Model")), tip) == name
    assert page.model.data(page.model.index(0, column), tip) == "Structure distance (DINO)"


def test_only_the_ticked_metrics_results_show(main_window, qtbot, tmp_path) -> None:
    """Ticking CLIPScore alone (nothing stored for it yet) listed the stored colour
    shifts under '… results', as if they were CLIPScore's, all through its run."""
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path))
    _run(page, qtbot)  # colour shift, ticked by default
    stored = page.model.rowCount()
    assert stored > 0
    page.set_checked(page.metrics, ["clipscore"])
    assert page.model.rowCount() == 0 and page.hist.panels == {}
    assert page.summary.text().startswith("No results yet for the ticked metrics")
    assert "Stored results of Colour shift show when ticked." in page.summary.text()
    page.set_checked(page.metrics, ["clipscore", "colour_shift"])
    assert page.model.rowCount() == stored


def test_results_are_listed_from_the_first_sample_on(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                     tmp_path) -> None:
    """A new user's first look lists the results by sample, first to last (Qt's default
    indicator, descending, listed them from the last sample up)."""
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path))
    _run(page, qtbot)
    header = page.table.horizontalHeader()
    assert header.sortIndicatorSection() == 0
    assert header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    samples = [r.sample_id for r in page.model.rows]
    assert samples == sorted(samples) and samples[0] == "s00"


def test_run_with_nothing_to_measure_says_what_is_missing(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                          tmp_path, monkeypatch) -> None:
    """A new project has no samples and no outputs: Run answered "Tick at least one model
    and one metric" with no model to tick. It names what is missing instead."""
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    page = _page(main_window, qtbot)
    Project.create(tmp_path / "empty.winnow").close()
    assert main_window.open_project(tmp_path / "empty.winnow")
    assert page.run() is None
    assert messages[-1][0] == "Nothing to run"
    assert messages[-1][1].startswith("No samples selected")
    main_window.close_project()
    assert main_window.open_project(_project(tmp_path / "no-outputs", outputs=False))
    assert page.sample_ids and page.models.count() == 0
    assert page.run() is None
    assert messages[-1][1].startswith("No output images to measure yet")
    assert "Import Model Outputs" in messages[-1][1]


def test_export_onto_a_folder_shows_the_same_sentence_as_the_cli(main_window, qtbot,
                                                                 tmp_path) -> None:
    # it said "Could not write X: …" with the error's bare words (ADR 216)
    page = _page(main_window, qtbot)
    assert main_window.open_project(_project(tmp_path, n=1))
    _run(page, qtbot)
    folder = tmp_path / "results.csv"
    folder.mkdir()
    assert page.export_to(str(folder)) is None
    assert main_window._dialogs[-1].text() == (f"{folder} is a folder; Winnow left it as it "
                                               "is: give a file name for the export")
    assert list(folder.iterdir()) == []
