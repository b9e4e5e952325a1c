"""GUI smoke tests (pytest-qt, offscreen): workspaces, demo project, import with progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.store import Project  # noqa: E402
from ui.import_report import ImportReportDialog  # noqa: E402
from ui.workspaces import WORKSPACES  # noqa: E402


@pytest.fixture
def window(main_window: MainWindow) -> MainWindow:
    return main_window


def test_five_workspaces_switch_with_shortcuts(window: MainWindow, qtbot) -> None:
    assert [window.nav.item(i).text() for i in range(window.nav.count())] == \
        [w.title for w in WORKSPACES]
    for index in range(len(WORKSPACES)):
        qtbot.keyClick(window, Qt.Key.Key_1 + index, Qt.KeyboardModifier.ControlModifier)
        assert window.stack.currentIndex() == index
    # with no project, Import stays available: it offers to create a project first
    assert window.act_import.isEnabled()


def test_demo_project_opens_and_shows_counts(window: MainWindow, qtbot,
                                             tmp_path: Path) -> None:
    path = tmp_path / "demo.winnow"
    job = window.create_demo(path)
    qtbot.waitUntil(lambda: window.project is not None, timeout=60_000)
    assert job.outcome == "done"
    counts = window.project.counts()
    assert counts["posts"] > 100 and counts["samples"] > 50 and counts["images"] > 50
    assert f"{counts['posts']:,} posts" in window.project_label.text()
    assert window.act_import.isEnabled()
    assert "demo.winnow" in window.windowTitle()


def test_import_runs_in_background_with_progress_and_report(window: MainWindow, qtbot,
                                                            tmp_path: Path) -> None:
    project_path = tmp_path / "p.winnow"
    Project.create(project_path).close()
    assert window.open_project(project_path)
    src = tmp_path / "posts.jsonl"
    lines = [json.dumps({"id": f"p{k}", "text": f"post {k}"}) for k in range(5000)]
    lines.insert(10, "{broken")
    src.write_text("\n".join(lines) + "\n")
    job = window.import_file(src)
    row = window.jobs_panel.rows[0]
    assert row.job is job
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog)
                                for w in window._dialogs), timeout=5_000)
    dialog = next(w for w in window._dialogs if isinstance(w, ImportReportDialog))
    assert "5000 imported" in dialog.summary.text()
    assert dialog.line_table.rowCount() == 1
    assert dialog.line_table.item(0, 0).text() == "11"
    row.refresh()
    assert row.bar.value() == row.bar.maximum() and not row.cancel.isEnabled()
    assert "5,000 posts" in window.project_label.text()


def test_second_instance_and_newer_file_get_clear_messages(window: MainWindow, qtbot,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "locked.winnow"
    holder = Project.create(path)
    try:
        messages: list[str] = []
        window.error_shown.connect(messages.append)
        assert not window.open_project(path)
        assert "already open for writing" in messages[-1]
        assert window.project is None
        box = window._dialogs[-1]
        button = next(b for b in box.buttons() if b.text() == "Open Read-Only")
        button.click()
        assert window.project is not None and window.project.readonly
        assert "(read-only)" in window.windowTitle()
        assert not window.act_import.isEnabled()
    finally:
        holder.close()


def test_quit_cancels_running_jobs_without_hanging(window: MainWindow, qtbot) -> None:
    import threading
    import time

    started = threading.Event()

    def long_job(state):  # type: ignore[no-untyped-def]
        started.set()
        while True:
            state.check()
            time.sleep(0.01)

    job = window.start_job("Endless", long_job)
    assert started.wait(5)

    def answer(button: str) -> None:
        box = window.quit_box
        assert box is not None and box.isVisible() and "Endless" in box.text()
        next(b for b in box.buttons() if b.text() == button).click()

    window.close()  # asks first (non-modal), the window stays
    answer("Cancel")  # the user changes their mind
    assert window.isVisible() and job.outcome == "running" and not job.state.cancelled()

    window.close()
    t0 = time.monotonic()
    answer("Cancel Jobs and Quit")
    assert time.monotonic() - t0 < 5
    assert not window.isVisible()
    assert job.outcome == "cancelled"
    assert not any(t.name.startswith("winnow-job") and t.is_alive()
                   for t in threading.enumerate())


def test_errors_from_threads_reach_the_user(window: MainWindow, qtbot) -> None:
    from app.errors import router

    shown: list[str] = []
    window.error_shown.connect(shown.append)

    def boom(state):  # type: ignore[no-untyped-def]
        raise RuntimeError("worker exploded")

    job = window.start_job("Failing job", boom)
    qtbot.waitUntil(lambda: bool(shown), timeout=5_000)
    assert job.outcome == "failed"
    assert "worker exploded" in shown[-1]
    assert any("worker exploded" in title for title, _ in router.history)


def test_on_done_runs_once_and_after_start_job_returns(window: MainWindow, qtbot) -> None:
    calls: list[object] = []
    job = window.start_job("Instant", lambda state: 42, calls.append)
    assert calls == []  # never synchronously inside start_job, even for instant work
    qtbot.waitUntil(lambda: calls == [job], timeout=5_000)
    qtbot.wait(100)
    assert calls == [job] and job.future.result() == 42
