"""Analyze workspace through pytest-qt (offscreen): CSV, tabs, rater filter, export, project."""

from __future__ import annotations

from pathlib import Path

import analyze_data as data
import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from ui.analyze.workspace import AnalyzeWorkspace  # noqa: E402


def _open(qtbot, page, monkeypatch, path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "CSV files (*.csv)")
    )
    button = (
        page.empty.buttons[0]
        if page.stack.currentWidget() is page.empty
        else next(
            b
            for b in page.main.findChildren(type(page.empty.buttons[0]))
            if b.text() == "Open Data File…"
        )
    )
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: page.analysis is not None and page.analysis.dataset == path.name, timeout=20_000
    )


def _export(qtbot, page, monkeypatch, target: Path) -> str:  # type: ignore[no-untyped-def]
    """Analyze → Export HTML Report… into ``target``; the report's text."""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    page.act_export.trigger()
    qtbot.waitUntil(lambda: page.last_export is not None, timeout=30_000)
    return str(page.last_export.read_text(encoding="utf-8"))


def test_empty_state_explains_how_to_get_data(page) -> None:  # type: ignore[no-untyped-def]
    assert page.stack.currentWidget() is page.empty
    text = page.empty.details.text()
    assert "Rating sessions" in text and "Metrics" in text and "CSV" in text
    assert page.empty_note.text() == "No project is open."
    assert [b.text() for b in page.empty.buttons] == ["Open Data File…"]
    assert not page.act_export.isEnabled()
    menu = page.workspace_menu()
    assert [a.text() for a in menu.actions()] == [
        "&Open Data File…",
        "&Recompute",
        "&Export HTML Report…",
        "",
        "Curator &Agreement…",
    ]


def test_open_csv_switch_tabs_with_keyboard(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = data.write_csv(tmp_path / "ranks.csv", data.rankings(20, 3))
    _open(qtbot, page, monkeypatch, path)
    assert page.stack.currentWidget() is page.main
    lead = page.views["leaderboard"]
    board = lead.tables[0]
    assert board.texts()[0][1] == page.analysis.section("leaderboard").tables[0].rows[0][1]
    # widgets added to a visible layout are shown by a queued call: let it run
    qtbot.waitUntil(lambda: len(lead.charts) == 1 and lead.charts[0].isVisible(), timeout=5_000)
    assert "Raters: 3" in page.facts.text()
    # rankings have no battle order: online Elo is off, and its tooltip says why
    assert not page.controls.online.isEnabled()
    assert "no battle order" in page.controls.online.toolTip()
    page.tabs.setFocus()
    seen = []
    for _ in range(len(page.views)):
        view = page.tabs.currentWidget()
        seen.append(view.key)
        assert view.tables or view.message.isVisible()
        qtbot.keyClick(page.tabs, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert seen == ["leaderboard", "significance", "agreement", "success", "breakdown", "idea"]
    assert page.tabs.currentWidget() is page.keywords  # the failure keywords (issue 19)
    qtbot.keyClick(page.tabs, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert page.tabs.currentIndex() == 0
    assert "Likert" in page.views["success"].message.text()


def test_rater_filter_toggle_and_threshold(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = data.write_csv(tmp_path / "likert.csv", data.likert(10, 5))
    _open(qtbot, page, monkeypatch, path)
    page.tabs.setCurrentWidget(page.views["agreement"])
    controls = page.controls
    assert controls.filter.isEnabled() and not controls.threshold.isEnabled()
    qtbot.mouseClick(controls.filter, Qt.MouseButton.LeftButton)
    assert controls.filter.isChecked() and controls.threshold.isEnabled()
    controls.threshold.setFocus()
    controls.threshold.selectAll()
    qtbot.keyClicks(controls.threshold, "0.5")
    qtbot.keyClick(controls.threshold, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: page.analysis.options.rater_filter and page.analysis.options.threshold == 0.5,
        timeout=20_000,
    )
    view = page.views["agreement"]
    flt = view.table_titled("Rater filter")
    assert [r[3] for r in flt.texts()] == ["kept"] * 4 + ["dropped"]
    assert "dropped rater5" in view.summary.text()
    assert any(k == "Rows left out by the rater filter" for k, _ in page.analysis.facts)
    qtbot.mouseClick(controls.filter, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.analysis.options.rater_filter, timeout=20_000)
    assert "Rater filter off" in view.summary.text()


def test_undefined_alpha_is_text_in_the_table(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = data.likert(4, 2)
    for r in rows:
        r["value"] = 3.0
    _open(qtbot, page, monkeypatch, data.write_csv(tmp_path / "flat.csv", rows))
    alpha = page.views["agreement"].tables[0].texts()
    assert all(r[1].startswith("undefined:") for r in alpha)
    cells = [c for v in page.views.values() for t in v.tables for row in t.texts() for c in row]
    assert cells and not any(c.lower() == "nan" for c in cells)


def test_bad_csv_shows_a_message_naming_the_row(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.csv"
    path.write_text("a,b,winner\nx,y,a\nx,y,perhaps\n")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    qtbot.mouseClick(page.empty.buttons[0], Qt.MouseButton.LeftButton)
    title, text = page.context.messages[-1]
    assert title == "Cannot open bad.csv" and "bad.csv row 3, column 'winner'" in text
    assert page.stack.currentWidget() is page.empty


def test_csv_from_another_tool_names_its_header_and_keeps_the_open_data(
    qtbot, page, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    good = data.write_csv(tmp_path / "v.csv", data.votes(50))
    _open(qtbot, page, monkeypatch, good)
    path = tmp_path / "export.csv"
    path.write_text("Date;Model;Score\n2025-01-01;m;3\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    page.act_open.trigger()
    title, text = page.context.messages[-1]
    assert title == "Cannot open export.csv"
    # read as ';'-separated (ADR 159): its columns are named, not a field count
    assert "export.csv: cannot tell what this file holds (header: 'Date', 'Model', 'Score')" \
        in text
    assert page.current_dataset().name == "v.csv" and page.analysis.dataset == "v.csv"


def test_export_button_writes_the_report(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _open(qtbot, page, monkeypatch, data.write_csv(tmp_path / "v.csv", data.votes(200)))
    target = tmp_path / "out" / "report"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.last_export is not None, timeout=30_000)
    assert page.last_export == target / "report.html"
    html = page.last_export.read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "v.csv" in html
    assert (target / "leaderboard-leaderboard.csv").is_file()


def test_the_report_carries_the_failure_keyword_tab(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import ui.analyze.keywords as keywords

    counts = [("<script>x</script>", 2), ("text rendering", 1)]
    monkeypatch.setattr(keywords, "keyword_counts", lambda project: counts)
    assert not page.keywords.area.isVisibleTo(page.keywords)  # no empty frame when none
    page.keywords.refresh(object())  # a project whose curators labelled feedback
    assert page.keywords.canvas is not None and page.keywords.area.isVisibleTo(page.keywords)
    _open(qtbot, page, monkeypatch, data.write_csv(tmp_path / "v.csv", data.votes(60)))
    target = tmp_path / "report"
    html = _export(qtbot, page, monkeypatch, target)
    assert '<img alt="Failure keywords"' in html and "<script" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert (target / "failure-keywords.csv").is_file()


def test_project_sessions_are_listed_and_follow_project_changes(qtbot, page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    project = data.build_project(tmp_path / "p.winnow")
    try:
        page.context.project = project
        page.context.project_changed.emit()
        assert page.stack.currentWidget() is page.empty
        assert "no merged rating sessions" in page.empty_note.text()
        data.rated_session(
            project,
            tmp_path / "f",
            "ranking",
            lambda t, n: {"ranks": {tok: k + 1 for k, (tok, _) in enumerate(t.options)}},
        )
        page.context.data_changed.emit()
        qtbot.waitUntil(lambda: page.analysis is not None, timeout=20_000)
        assert page.controls.dataset.currentText().startswith("Session: ranking")
        assert page.analysis.kind == "rankings" and page.analysis.groups == ["split"]
        assert page.views["agreement"].tables[0].texts()[0][0] == "rank"
        page.context.project = None
        page.context.project_changed.emit()
        assert page.stack.currentWidget() is page.empty
    finally:
        project.close()


def test_in_the_main_window_with_real_background_jobs(qtbot, tmp_path, main_window) -> None:  # type: ignore[no-untyped-def]
    win = main_window
    try:
        page = win.pages["analyze"]
        assert isinstance(page, AnalyzeWorkspace)
        win.nav.setCurrentRow(4)  # the user is on Analyze (a hidden page defers its work)
        page.open_csv_file(data.write_csv(tmp_path / "s.csv", data.scores(20)))
        qtbot.waitUntil(lambda: page.analysis is not None and not page.busy.text(), timeout=30_000)
        assert page.analysis.kind == "scores"
        assert page.views["leaderboard"].charts
    finally:
        win.runner.shutdown()
        win.close_project()


def test_a_hidden_analyze_page_waits_until_shown(qtbot, tmp_path, main_window) -> None:  # type: ignore[no-untyped-def]
    """Opening a project does not run statistics on a page nobody is looking at."""
    win = main_window
    try:
        page = win.pages["analyze"]
        win.nav.setCurrentRow(0)
        page.open_csv_file(data.write_csv(tmp_path / "s.csv", data.scores(20)))
        qtbot.waitUntil(lambda: bool(page.datasets), timeout=30_000)
        qtbot.wait(400)  # longer than the debounce: nothing may start while hidden
        assert page.analysis is None and not any(
            j.state.title.startswith("Analyze") for j in win.runner.jobs
        )
        win.nav.setCurrentRow(4)
        # the first paint says what is coming, before the debounce starts the job
        lead = page.views["leaderboard"]
        assert lead.message.isVisibleTo(page) and lead.message.text() == "Computing…"
        assert page.busy.text() == "Computing…"
        qtbot.waitUntil(lambda: page.analysis is not None, timeout=30_000)
        assert page.analysis.kind == "scores"
        assert page.busy.text() == "" and not lead.message.isVisibleTo(page)
    finally:
        win.runner.shutdown()
        win.close_project()


def test_a_newer_request_cancels_the_analysis_it_replaces(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from core.jobs import Job, JobState

    _open(qtbot, page, monkeypatch, data.write_csv(tmp_path / "v.csv", data.votes(60)))
    started: list[Job] = []

    def start_job(title, fn, on_done=None, quiet=False):  # type: ignore[no-untyped-def]
        import concurrent.futures

        job = Job(JobState(title=title), concurrent.futures.Future())  # still running
        started.append(job)
        return job

    monkeypatch.setattr(page.context, "start_job", start_job)
    page.recompute()
    page.recompute()  # the user changed an option before the first one ended
    assert [j.state.cancelled() for j in started] == [True, False]


def test_failure_keywords_alone_make_a_report(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A project with labelled feedback but no ratings or metrics: the keyword chart is
    on screen, and Export writes it (Export was disabled: there was no analysis)."""
    import ui.analyze.keywords as keywords

    monkeypatch.setattr(keywords, "keyword_counts", lambda project: [("face changed", 4)])
    page.keywords.refresh(object())
    page.refresh_datasets()
    assert page.tabs.currentWidget() is page.keywords and page.analysis is None
    assert page.act_export.isEnabled()
    html = _export(qtbot, page, monkeypatch, tmp_path / "kw")
    assert "<h1>Analysis: failure keywords</h1>" in html and "Leaderboard" not in html
    assert '<img alt="Failure keywords"' in html and "face changed" in html


def test_stop_cancels_the_running_computation(qtbot, page, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import concurrent.futures
    from typing import Any

    from core.jobs import Cancelled, Job, JobState

    _open(qtbot, page, monkeypatch, data.write_csv(tmp_path / "v.csv", data.votes(60)))
    started: list[tuple[Job, Any]] = []

    def start_job(title, fn, on_done=None, quiet=False):  # type: ignore[no-untyped-def]
        job = Job(JobState(title=title), concurrent.futures.Future())
        started.append((job, on_done))
        return job

    monkeypatch.setattr(page.context, "start_job", start_job)
    page.recompute()
    assert page.stop_button.isVisible() and page.busy.text() == "Computing…"
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    job, on_done = started[-1]
    assert job.state.cancelled() and page.busy.text() == "Stopping…"
    job.future.set_exception(Cancelled())  # the worker saw it at its next check
    job.outcome = "cancelled"
    on_done(job)
    assert not page.stop_button.isVisible() and "F5" in page.busy.text()
