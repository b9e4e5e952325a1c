"""Curate with proposals through pytest-qt (offscreen): accept with Y, correct with the
usual editors, undo both; the filter; the Posts window; Propose… as a background job."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from propose_helpers import run  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.selection import SampleFilter  # noqa: E402
from ui.context import AppContext  # noqa: E402
from ui.curate.workspace import CurateWorkspace  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


class Harness:
    """A Curate workspace on its own context; jobs run synchronously."""

    def __init__(self, qtbot, project) -> None:  # type: ignore[no-untyped-def]
        self.context = AppContext()
        self.messages: list[str] = []
        self.statuses: list[str] = []
        self.context.bind(self._start_job, lambda t, m: self.messages.append(f"{t}: {m}"),
                          lambda text, ms: self.statuses.append(text))
        self.context.project = project
        self.ws = CurateWorkspace(self.context)
        qtbot.addWidget(self.ws)
        self.ws.resize(1300, 800)
        self.ws.show()
        qtbot.waitExposed(self.ws)
        self.ws.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is self.ws)  # for the shortcuts

    def _start_job(self, title, fn, on_done):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future

        from core.jobs import Cancelled, JobState

        class Job:
            pass

        job = Job()
        job.future = Future()
        job.error = ""
        try:
            job.future.set_result(fn(JobState(title=title)))
            job.outcome = "done"
        except Cancelled:
            job.outcome = "cancelled"
        except Exception as exc:  # noqa: BLE001 - reported like the real runner
            job.future.set_exception(exc)
            job.outcome, job.error = "failed", str(exc)
        if on_done:
            on_done(job)
        return job

    def select(self, sid: str) -> None:
        self.ws.select_row(self.ws.model.row_of(sid))
        assert self.ws.current_id() == sid

    def status(self, sid: str) -> dict[str, str]:
        return dict(self.ws.project.conn.execute(
            "SELECT field, status FROM proposal_field_status WHERE sample_id = ?", (sid,)))


@pytest.fixture
def proposed(posts_project, server):  # type: ignore[no-untyped-def]
    run(posts_project, server.url, kinds=["prompt", "quality", "roles"])
    return posts_project


def test_machine_values_are_marked_then_accepted_with_y_and_undone(qtbot, proposed) -> None:
    h = Harness(qtbot, proposed)
    h.select("q1")
    bar = h.ws.view.proposals
    assert bar.isVisible() and "Machine-proposed" in bar.text.text()
    assert set(bar.pending) == {"prompt", "quality", "roles"}
    h.ws.table.setFocus()
    qtbot.keyClick(h.ws.table, Qt.Key.Key_Y)
    assert set(h.status("q1").values()) == {"accepted"}
    assert not bar.accept.isVisible() and "3 accepted" in bar.text.text()
    h.ws.undo()
    assert set(h.status("q1").values()) == {"proposed"}
    assert bar.accept.isVisible()
    h.ws.redo()
    assert set(h.status("q1").values()) == {"accepted"}


def test_correcting_with_the_usual_editors_marks_corrected_and_undo_restores(
        qtbot, proposed) -> None:
    h = Harness(qtbot, proposed)
    h.select("q4")
    h.ws.table.setFocus()
    qtbot.keyClick(h.ws.table, Qt.Key.Key_A)  # Analysis instead of the proposed Benchmark
    assert h.status("q4")["quality"] == "corrected"
    edit = h.ws.view.prompt.edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "a unicorn with zebra stripes")
    h.ws.table.setFocus()  # leaving the box commits the edit
    assert h.status("q4")["prompt"] == "corrected"
    assert "prompt" not in h.ws.view.proposals.pending
    h.ws.undo()
    h.ws.undo()
    assert h.status("q4") == {"prompt": "proposed", "quality": "proposed"}
    assert h.ws.view.proposals.pending == ["prompt", "quality"]


def test_the_proposal_filter(qtbot, proposed) -> None:
    h = Harness(qtbot, proposed)
    h.select("q1")
    qtbot.keyClick(h.ws.table, Qt.Key.Key_Y)
    combo = h.ws.filters.proposal
    combo.setCurrentIndex(combo.findData("accepted"))
    assert h.ws.model.ids == ["q1"]
    combo.setCurrentIndex(combo.findData("proposed"))
    assert "q1" not in h.ws.model.ids and "q4" in h.ws.model.ids and "s9" not in h.ws.model.ids
    combo.setCurrentIndex(combo.findData("any"))
    assert set(h.ws.model.ids) == {"q1", "q2", "q3", "q4", "q5"}
    assert SampleFilter(proposal="corrected").sample_ids(proposed) == []


def test_posts_window_makes_a_sample_by_hand_and_undo_removes_it(qtbot, posts_project) -> None:
    posts_project.conn.execute("DELETE FROM samples")  # raw posts only, as scraped
    h = Harness(qtbot, posts_project)
    assert "No samples yet, 11 posts" in h.ws.filters.count.text()
    assert "Posts…" in h.ws.filters.count.text()
    dialog = h.ws.proposals.open_posts()
    qtbot.addWidget(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    assert dialog.model.ids == ["p9", "q1", "q2", "q3", "q4", "q5"]
    dialog.search.setText("unicorn")
    dialog.reload()
    assert dialog.model.ids == ["q4"]
    dialog.table.selectRow(0)
    qtbot.keyClick(dialog, Qt.Key.Key_N, CTRL)
    assert h.ws.current_id() == "q4"
    assert h.ws.view.prompt.text() == "a unicorn with zebra stripes in a misty forest"
    assert [item.role for item in h.ws.view.detail.images] == []  # a text-only post
    assert dialog.model.row(0).samples == 1
    h.ws.undo()
    assert posts_project.conn.execute("SELECT count(*) FROM samples WHERE post_id = 'q4'"
                                      ).fetchone()[0] == 0
    assert h.ws.model.row_of("q4") is None


def test_propose_dialog_runs_the_job_and_the_report_opens(qtbot, posts_project,
                                                          server) -> None:
    h = Harness(qtbot, posts_project)
    dialog = h.ws.proposals.ask_propose()
    qtbot.addWidget(dialog)
    dialog.url.setText(server.url)
    dialog.model.setText("good")
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind in ("quality", "prompt"))
    dialog._accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert posts_project.conn.execute("SELECT count(*) FROM proposals WHERE status = 'ok'"
                                      ).fetchone()[0] == 10
    assert set(h.ws.model.ids) >= {"q1", "q4"}  # the list reloaded with the new samples
    assert any("10 new" in s for s in h.statuses)
    h.ws.proposals.open_report()
    report = h.ws.proposals.report_dialog
    qtbot.addWidget(report)
    assert report.tabs.count() == 8 and report.data["totals"]["ok"] == 10


def test_a_bad_endpoint_is_refused_in_the_dialog(qtbot, posts_project) -> None:
    h = Harness(qtbot, posts_project)
    dialog = h.ws.proposals.ask_propose()
    qtbot.addWidget(dialog)
    dialog.url.setText("localhost:8000")
    dialog.model.setText("m")
    dialog._accept()
    assert "must start with http" in dialog.error.text()
    assert dialog.result() != dialog.DialogCode.Accepted


def test_template_editor_saves_a_new_version(qtbot, posts_project) -> None:
    h = Harness(qtbot, posts_project)
    dialog = h.ws.proposals.open_templates()
    qtbot.addWidget(dialog)
    assert not dialog.save.isEnabled()
    dialog.user.setPlainText(dialog.user.toPlainText() + "\nAnswer in English. {thred}")
    assert dialog.save.isEnabled() and "{thred}" in dialog.info.text()
    dialog.note.setText("English")
    dialog.save.click()
    assert [t for t in posts_project.conn.execute(
        "SELECT version, note FROM proposal_templates WHERE kind = 'prompt' ORDER BY version")
            ] == [(1, "built-in"), (2, "English")]
    assert dialog.version.count() == 2 and not dialog.save.isEnabled()


def test_analyze_shows_the_failure_keywords_as_a_chart(qtbot, posts_project, server) -> None:
    from core.propose.commands import SetFeedbackLabel
    from core.propose.plots import keyword_figure
    from ui.analyze.workspace import AnalyzeWorkspace

    run(posts_project, server.url, kinds=["feedback"])
    SetFeedbackLabel("q3", "q3r1", "failure", "text rendering").do(posts_project)
    context = AppContext()
    context.bind(lambda *a: None, lambda *a: None, lambda *a: None)
    context.project = posts_project
    ws = AnalyzeWorkspace(context)
    qtbot.addWidget(ws)
    ws.show()
    assert ws.stack.currentWidget() is ws.main  # no rating or metric data, still shown
    assert ws.tabs.currentWidget() is ws.keywords
    assert ws.keywords.counts == [("color drift", 1), ("text rendering", 1)]
    assert ws.keywords.canvas is not None and "2 pieces" in ws.keywords.note.text()
    fig = keyword_figure(ws.keywords.counts)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["text rendering", "color drift"]
    assert [p.get_width() for p in ax.patches] == [1, 1]


def test_feedback_labels_show_and_are_corrected_undoably(qtbot, posts_project, server) -> None:
    run(posts_project, server.url, kinds=["feedback"])
    h = Harness(qtbot, posts_project)
    h.select("q1")
    items = h.ws.view.feedback
    assert items.item(0).text() == "[failure: color drift] the green looks yellowish"
    assert items.item(1).text() == "[success] love it"
    assert h.ws.proposals.label_feedback(1, "failure", "Face Changed")
    assert items.item(1).text() == "[failure: face changed] love it"
    assert h.status("q1")["feedback/q1r2"] == "corrected"
    assert not h.ws.proposals.label_feedback(0, "failure", "")  # a failure needs a keyword
    assert "needs a short keyword" in h.messages[-1]
    h.ws.undo()
    assert items.item(1).text() == "[success] love it"
    assert h.status("q1")["feedback/q1r2"] == "proposed"


def test_posts_window_outlives_its_project_quietly(qtbot, posts_project) -> None:
    h = Harness(qtbot, posts_project)
    dialog = h.ws.proposals.open_posts()
    qtbot.addWidget(dialog)
    dialog.search.setText("unicorn")  # a search still waiting when the window closes
    dialog.hide()
    qtbot.wait(400)  # an exception in the event loop would fail this test
    assert dialog.model.ids == ["q1", "q2", "q3", "q4", "q5"]  # the search never ran
    posts_project.close()  # closed under the window (e.g. by the app quitting)
    dialog.reload()
    assert dialog.model.ids == [] and dialog.model.row(0) is None
    assert dialog.count.text().startswith("0 listed")


def test_propose_in_a_project_without_posts_says_to_import_them(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A new project has no posts: Propose… said "Every main post already has an imported
    sample", which is not why there is nothing to send."""
    from core.store import Project

    with Project.create(tmp_path / "new.winnow") as project:
        h = Harness(qtbot, project)
        assert h.ws.proposals.ask_propose() is None
        assert h.messages == ["Nothing to propose: The project holds no posts yet: import a "
                              "JSON Lines file of posts first (File → Import Posts…, "
                              "Ctrl+I)."]
