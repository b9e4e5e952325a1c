"""The jobs panel: rows scroll instead of growing the window; old finished rows go."""

from __future__ import annotations

from concurrent.futures import Future

from app.jobs import Job
from core.jobs import JobState
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
    qtbot.waitUntil(lambda: panel.scroll.verticalScrollBar().maximum() > 0)
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
        "[Errno 2] No such file: 'a.jpg'"
    assert describe_error(KeyError("sample")) == "KeyError: 'sample'"
    assert describe_error(ValueError()) == "ValueError: "
