"""The jobs panel: rows scroll instead of growing the window; old finished rows go."""

from __future__ import annotations

from concurrent.futures import Future

from PySide6.QtCore import Qt

from core.jobs import Job, JobState
from ui.jobs_panel import MAX_FINISHED_ROWS, JobsPanel


def _job(title: str, done: bool) -> Job:
    future: Future = Future()
    if done:
        future.set_result(None)
    return Job(JobState(title=title), future, outcome="done" if done else "running")


def test_many_jobs_scroll_and_old_finished_rows_are_dropped(qtbot) -> None:
    panel = JobsPanel()
    qtbot.addWidget(panel)
    panel.resize(800, 150)
    panel.show()
    running = panel.add_job(_job("still running", done=False))
    height = panel.minimumSizeHint().height()
    for k in range(MAX_FINISHED_ROWS + 10):
        panel.add_job(_job(f"job {k}", done=True))
    # the panel does not ask for more room as rows pile up: it scrolls
    assert panel.minimumSizeHint().height() == height
    qtbot.waitUntil(lambda: panel.scroll_area.verticalScrollBar().maximum() > 0)
    # newest on top; the oldest finished rows went; the running one stayed
    titles = [r.job.state.title for r in panel.rows]
    assert titles[0] == f"job {MAX_FINISHED_ROWS + 9}"
    assert sum(r.job.outcome == "done" for r in panel.rows) == MAX_FINISHED_ROWS
    assert running in panel.rows and "job 0" not in titles


def test_failed_jobs_read_as_messages_and_unexpected_errors_keep_their_type() -> None:
    from app.jobs import describe_error
    from core.store.project import ReadOnlyProjectError

    assert describe_error(ReadOnlyProjectError("demo.winnow is open read-only")) == \
        "demo.winnow is open read-only"
    assert describe_error(FileNotFoundError(2, "No such file", "a.jpg")) == \
        "a.jpg: No such file"  # in words, no errno (test_job_messages.py)
    assert describe_error(KeyError("sample")) == "KeyError: 'sample'"
    assert describe_error(ValueError()) == "ValueError: "


def _ended(title: str, reports: list[tuple[str, int]]) -> Job:
    """A job whose function returned after reporting ``(ok|failed, count)`` items."""
    state = JobState(title=title)
    for kind, n in reports:
        if kind == "ok":
            state.item_done(n)
        else:
            state.item_failed(f"item {n}", "could not be read", count=n)
    future: Future = Future()
    future.set_result(None)
    return Job(state, future, outcome="done")


def test_failed_items_read_as_failed_or_partial_never_plain_finished(qtbot) -> None:
    panel = JobsPanel()
    qtbot.addWidget(panel)
    rows = {name: panel.add_job(_ended(name, reports)) for name, reports in (
        ("all failed", [("failed", 12)]), ("some failed", [("ok", 9), ("failed", 3)]),
        ("fine", [("ok", 5)]), ("no items", []))}
    panel.refresh()
    assert rows["all failed"].verdict() == "failed"
    assert rows["all failed"].status.text() == \
        "Failed — every item failed (12): item 12: could not be read"
    assert rows["all failed"].bar.format() == "failed"
    assert rows["some failed"].verdict() == "partial"
    assert rows["some failed"].status.text().startswith("Finished with failures — 3 of 12")
    assert rows["fine"].status.text() == "Finished" and rows["no items"].verdict() == "done"


def test_the_state_keeps_the_first_failures_and_counts_them_all() -> None:
    from core.jobs import MAX_FAILURES_KEPT

    state = JobState()
    assert state.verdict == "ok"
    for k in range(MAX_FAILURES_KEPT + 5):
        state.item_failed(f"line {k}", "bad JSON")
    assert state.verdict == "failed" and state.items_failed == MAX_FAILURES_KEPT + 5
    assert len(state.failures) == MAX_FAILURES_KEPT and state.failures[0] == "line 0: bad JSON"
    state.item_done()
    assert state.verdict == "partial"


def test_clear_finished_keeps_the_running_jobs(qtbot) -> None:
    panel = JobsPanel()
    qtbot.addWidget(panel)
    running = panel.add_job(_job("running", done=False))
    finished = [panel.add_job(_job(f"done {k}", done=True)) for k in range(3)]
    panel.show()
    qtbot.waitUntil(lambda: all(row.isVisible() for row in finished))
    panel.refresh()
    assert panel.clear_button.isEnabled()
    panel.clear_button.click()  # no event loop turn: the rows' deletion is still pending
    assert not any(row.isVisible() for row in finished)  # yet they are gone from view
    assert panel.rows == [running] and not panel.clear_button.isEnabled()
    assert panel.placeholder.isHidden()
    running.job.outcome = "done"
    panel.refresh()
    assert panel.clear_finished() == 1 and panel.rows == []
    assert not panel.placeholder.isHidden()


def test_the_panel_opens_once_for_a_long_job_and_never_for_quiet_ones(main_window, qtbot,
                                                                     monkeypatch) -> None:
    import threading

    from app import window_jobs

    monkeypatch.setattr(window_jobs, "SHOW_PANEL_AFTER_MS", 50)
    window = main_window
    release = threading.Event()

    def slow(state):  # type: ignore[no-untyped-def]
        release.wait(10)

    quick = window.start_job("Quick", lambda state: None)  # over before the delay
    qtbot.waitUntil(lambda: quick.outcome == "done")
    quiet = window.start_job("Recompute", slow, quiet=True)
    qtbot.wait(200)
    assert not window.jobs_dock.isVisible()
    assert window.jobs.indicator.isVisible() and "1 job running" in window.jobs.indicator.text()
    release.set()
    qtbot.waitUntil(lambda: quiet.outcome == "done")
    qtbot.waitUntil(lambda: not window.jobs.indicator.isVisible())

    release.clear()
    window.start_job("Import", slow)  # asked for by the user and long: shown once
    qtbot.waitUntil(window.jobs_dock.isVisible, timeout=2_000)
    window.jobs_dock.close()  # the user closes it…
    window.start_job("Another import", slow)
    qtbot.wait(200)
    assert not window.jobs_dock.isVisible()  # …and it stays closed
    assert "2 jobs running" in window.jobs.indicator.text()
    qtbot.mouseClick(window.jobs.indicator, Qt.MouseButton.LeftButton)
    assert window.jobs_dock.isVisible()
    release.set()
