"""Curate → Team (Share Work…, Merge Returned Work…, Resolve Conflicts…) through pytest-qt:
real dialogs, real key presses, jobs run synchronously."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.jobs import JobState  # noqa: E402
from core.store import Project  # noqa: E402
from core.teamwork.conflicts import list_conflicts  # noqa: E402
from core.teamwork.values import read_values  # noqa: E402
from tests.teamwork.team_helpers import Curator, make_project, package_path, split  # noqa: E402
from ui.context import AppContext  # noqa: E402
from ui.curate.adjudicate import word_diff  # noqa: E402
from ui.curate.workspace import CurateWorkspace  # noqa: E402


class Harness:
    """A Curate workspace on its own context; jobs run synchronously; messages kept."""

    def __init__(self, qtbot: Any, project: Project) -> None:
        self.context = AppContext()
        self.messages: list[str] = []
        self.status: list[str] = []
        self.context.bind(self._start_job, lambda t, m: self.messages.append(f"{t}: {m}"),
                          lambda text, ms: self.status.append(text))
        self.context.project = project
        self.ws = CurateWorkspace(self.context)
        qtbot.addWidget(self.ws)
        self.ws.resize(1300, 800)
        self.ws.show()
        qtbot.waitExposed(self.ws)

    def _start_job(self, title: str, fn: Any, on_done: Any) -> Any:
        class Job:
            pass

        job = Job()
        job.future = Future()  # type: ignore[attr-defined]
        try:
            job.future.set_result(fn(JobState(title=title)))  # type: ignore[attr-defined]
            job.outcome, job.error = "done", ""  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - reported like the real runner
            job.future.set_exception(exc)  # type: ignore[attr-defined]
            job.outcome, job.error = "failed", str(exc)  # type: ignore[attr-defined]
        if on_done:
            on_done(job)
        return job


def _share(h: Harness, out: Path) -> list[Path]:
    dialog = h.ws.page_actions.team.ask_share()
    assert dialog is not None
    dialog.names.setPlainText("Alice\nBob\n")
    dialog.overlap.setValue(100)
    dialog.folder.setText(str(out))
    dialog._accept()
    assert h.messages and h.messages[-1].startswith("Work shared"), h.messages
    return sorted(out.glob("*.winnow"))


def test_share_merge_and_adjudicate_with_keys(qtbot: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    h = Harness(qtbot, project)
    files = _share(h, tmp_path / "packages")
    assert [f.name for f in files] == ["lead-alice.winnow", "lead-bob.winnow"]
    with Curator(files[0]) as c:
        c.prompt("s1", "Turn the cat green")
        c.label("s2", "Benchmark")
    with Curator(files[1]) as c:
        c.prompt("s1", "Make the cat green please")
    junk = tmp_path / "junk.winnow"
    junk.write_text("not a package")
    h.messages.clear()
    h.ws.page_actions.team.merge([files[0], junk, files[1]])
    assert h.messages == []  # with conflicts waiting, the report is in their window
    window = h.ws.page_actions.team.dialog
    assert window is not None and window.isVisible()  # opened by the merge
    report = window.report.text()
    assert report.startswith("Some packages were refused:\njunk.winnow")
    assert "lead-alice.winnow (Alice): 2 change(s) merged" in report
    assert "1 conflict(s) to resolve" in report
    assert h.ws.model.row_of("s2") is not None
    qtbot.waitExposed(window)
    assert window.list.count() == 1
    assert "Turn the cat green" in window.ours.text.toPlainText()
    assert "Make the cat green please" in window.theirs.text.toPlainText()
    assert window.theirs.title() == "Bob's value"
    assert h.ws.current_id() == "s1"  # the workspace shows the sample in question
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_2)
    assert read_values(project.conn, ["s1"])["s1"]["prompt"] == "Make the cat green please"
    assert list_conflicts(project) == [] and window.list.count() == 0
    assert window.empty.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undoable
    assert read_values(project.conn, ["s1"])["s1"]["prompt"] == "Turn the cat green"
    assert window.list.count() == 1
    qtbot.keyClick(window, Qt.Key.Key_Left)  # keep the project's value
    assert read_values(project.conn, ["s1"])["s1"]["prompt"] == "Turn the cat green"
    assert [c.choice for c in list_conflicts(project, "resolved")] == ["ours"]
    window.close()
    project.close()


def test_image_conflict_draws_both_sides(qtbot: Any, tmp_path: Path) -> None:
    from core.curate.image_edits import add_box

    project = make_project(tmp_path)
    h = Harness(qtbot, project)
    files = _share(h, tmp_path / "packages")
    for k, path in enumerate(files):
        with Curator(path) as c:
            sha = c.project.conn.execute("SELECT sha256 FROM sample_images WHERE "
                                         "sample_id = 's2' LIMIT 1").fetchone()[0]
            c.run(add_box("s2", sha, None, "output", (5 + 20 * k, 5, 30, 30), (240, 160)))
    h.ws.page_actions.team.merge(files)
    window = h.ws.page_actions.team.dialog
    assert window.list.count() == 1 and "Image roles and boxes" in window.list.item(0).text()
    for side in (window.ours, window.theirs):
        assert not side.pictures.pixmap().isNull()
        assert side.pictures.pixmap().width() > 100
        assert "3 box(es)" in side.text.toPlainText()
    assert "box 25,5 30×30" in window.theirs.text.toPlainText()
    window.close()
    project.close()


def test_a_package_opens_in_curate_without_share_or_merge(qtbot: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    h = Harness(qtbot, project)
    files = _share(h, tmp_path / "packages")
    project.close()
    package = Project.open(files[0])
    h.context.project = package
    h.context.project_changed.emit()
    team = h.ws.page_actions.team
    assert not team.share_action.isVisible() and not team.merge_action.isVisible()
    shown = next(s for s in h.status if "Alice's curator package" in s)
    assert str(files[0]) in shown and "saved as you make it" in shown  # the file to send
    assert h.ws.model.rowCount() == 5
    h.ws.select_row(h.ws.model.row_of("s1"))
    h.ws.review.label("Trash")
    assert read_values(package.conn, ["s1"])["s1"]["quality"] == "Trash"
    assert team.ask_share() is None and "Share work" in h.messages[-1]
    package.close()


def test_word_diff_marks_what_changed(qapp: Any) -> None:
    left, right = word_diff("turn the cat green", "turn the dog green")
    assert "line-through\">cat</span>" in left and ">dog</span>" in right
    assert "the</span>" not in left  # words both share are not marked
    assert left.startswith("turn the") and right.endswith("green")


def test_analyze_shows_curator_agreement(qtbot: Any, tmp_path: Path) -> None:
    from core.teamwork.merge import merge_packages
    from ui.analyze.workspace import AnalyzeWorkspace

    project = make_project(tmp_path)
    h = Harness(qtbot, project)
    files = _share(h, tmp_path / "packages")
    with Curator(files[0]) as c:
        c.label("s2", "Benchmark")
        c.label("s3", "Trash")
    with Curator(files[1]) as c:
        c.label("s1", "Analysis")
        c.label("s2", "Benchmark")
    merge_packages(project, files)
    analyze = AnalyzeWorkspace(h.context)
    qtbot.addWidget(analyze)
    menu = analyze.workspace_menu()
    action = next(a for a in menu.actions() if a.text() == "Curator &Agreement…")
    action.trigger()
    window = analyze.agreement_window
    qtbot.addWidget(window)
    assert window.choice.count() == 1 and "2 package(s) merged" in window.choice.itemText(0)
    fields = window.tables["fields"]
    assert fields.item(0, 0).text() == "Quality label" and fields.item(0, 1).text() == "5"
    assert fields.item(0, 2).text() == f"{window.agreement.fields[0].alpha:.3f}"
    assert "Alice–Bob: 0.412 (n=5)" in fields.item(0, 4).text()  # 7/17, hand-computed
    curators = window.tables["curators"]
    assert [curators.item(r, 0).text() for r in range(curators.rowCount())] == ["Alice", "Bob"]
    assert curators.item(0, 2).text() == "80%"
    panel = window.chart.chart.panels[0]
    assert panel.rows == ["Alice", "Bob"] and panel.cols[0] == "Quality"
    assert panel.values[1, 0] == pytest.approx(0.8)  # Bob's labels vs the result
    project.close()


def test_the_main_window_opens_a_package_and_every_workspace_shows_it(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    from app.errors import router

    project = make_project(tmp_path)
    report = split(project, tmp_path / "out")
    project.close()
    errors: list[str] = []
    router.listeners.append(lambda title, details: errors.append(f"{title}\n{details}"))
    assert main_window.open_project(package_path(report, "Alice"))
    for key in "12345":  # every workspace reads the package; none writes to it
        qtbot.keyClick(main_window, Qt.Key(ord(key)), Qt.KeyboardModifier.ControlModifier)
        QApplication.processEvents()
    assert errors == []
    assert main_window.context.project.path.name == "lead-alice.winnow"


def test_resolve_conflicts_with_none_says_where_they_come_from(qtbot: Any,
                                                               tmp_path: Path) -> None:
    """Curate → Team → Resolve Conflicts… before any merge: no two '(empty)' value panes
    under 'Every conflict is resolved.', but where conflicts come from."""
    project = Project.create(tmp_path / "p.winnow")
    try:
        h = Harness(qtbot, project)
        window = h.ws.page_actions.team.show_conflicts()
        qtbot.addWidget(window)
        assert "Merge Returned Work" in window.heading.text()
        assert not window.ours.isVisible() and not window.theirs.isVisible()
        assert not window.keep.isEnabled() and not window.take.isEnabled()
    finally:
        project.close()


def test_share_refuses_a_used_folder_in_the_dialog_keeping_what_was_typed(
        qtbot: Any, tmp_path: Path) -> None:
    project = make_project(tmp_path)
    h = Harness(qtbot, project)
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    dialog = h.ws.page_actions.team.ask_share()
    assert dialog is not None
    dialog.names.setPlainText("Alice\nBob\n")
    for folder, words in ((used, "already holds files"), (a_file, "is a file")):
        dialog.folder.setText(str(folder))
        dialog._accept()
        assert dialog.isVisible() and h.messages == []  # no job, no "Work not shared"
        assert str(folder) in dialog.error.text() and words in dialog.error.text()
        assert "overwrite" not in dialog.error.text()  # Share offers no overwrite
        assert dialog.curator_names() == ["Alice", "Bob"]  # nothing to type again
    assert (used / "notes.txt").read_text() == "mine" and a_file.read_text() == "mine"
    dialog.folder.setText(str(tmp_path / "fresh"))
    dialog._accept()
    assert h.messages and h.messages[-1].startswith("Work shared")
    project.close()


def test_conflicts_window_never_resolves_into_the_next_project(qtbot: Any, tmp_path: Path
                                                               ) -> None:
    from core.teamwork.merge import merge_packages

    def team_project(folder: Path, bob_says: str) -> tuple[Project, list[Path]]:
        project = make_project(folder)
        report = split(project, folder / "packages")
        files = [package_path(report, "Alice"), package_path(report, "Bob")]
        with Curator(files[0]) as c:
            c.prompt("s1", "Turn the cat green")
        with Curator(files[1]) as c:
            c.prompt("s1", bob_says)
        return project, files

    first, first_files = team_project(tmp_path / "a", "First project's Bob")
    second, second_files = team_project(tmp_path / "b", "Second project's Bob")
    merge_packages(second, second_files)  # its conflict 1 waits too
    h = Harness(qtbot, first)
    h.ws.page_actions.team.merge(first_files)
    window = h.ws.page_actions.team.dialog
    assert window is not None and window.isVisible()
    h.context.project = second  # File → Open another project, the window left open
    h.context.project_changed.emit()
    if window.isVisible():
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        qtbot.keyClick(window, Qt.Key.Key_2)
    assert read_values(second.conn, ["s1"])["s1"]["prompt"] != "First project's Bob"
    open_now = h.ws.page_actions.team.dialog
    if open_now is not None and open_now.isVisible():  # if shown, it is the new project's
        assert "Second project's Bob" in open_now.theirs.text.toPlainText()
        assert open_now.report.text() == ""  # not the first project's merge report
    first.close()
    second.close()
