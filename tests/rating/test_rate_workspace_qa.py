"""Rate workspace QA fixes: buttons follow their actions; a read-only project."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import build_project, make_session, simple_answer

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from core.rating.merge import merge_files  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from core.selection import SampleFilter  # noqa: E402
from core.store import Project  # noqa: E402


def _button(page, action):  # type: ignore[no-untyped-def]
    text = action.text().replace("&", "")
    (button,) = [b for b in page.main.findChildren(QPushButton) if b.text() == text]
    return button


def _page(window):  # type: ignore[no-untyped-def]
    page = window.show_workspace("rate")  # its actions act only while it is shown
    assert page.stack.currentWidget() is page.main
    return page


def test_new_session_button_is_off_while_its_action_is(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                       tmp_path: Path) -> None:
    build_project(tmp_path / "w.winnow").close()
    assert main_window.open_project(tmp_path / "w.winnow")
    page = _page(main_window)
    button = _button(page, page.act_new)
    assert page.act_new.isEnabled() and button.isEnabled()
    # an empty Curate filter no longer stops a session: the dialog offers other samples
    main_window.context.set_selection(SampleFilter(ids=("no-such-sample",)))
    assert page.act_new.isEnabled() and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.dialog.source.currentData() == "benchmark" and page.dialog.sample_ids
    page.dialog.reject()
    page.dialog = None
    # with no model outputs there is nothing to rate: the action and its button are off
    Project.create(tmp_path / "empty.winnow").close()
    assert main_window.open_project(tmp_path / "empty.winnow")
    assert not page.act_new.isEnabled()
    assert not button.isEnabled()  # it used to look clickable and do nothing
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.dialog is None
    main_window.runner.shutdown()
    main_window.close_project()


def test_read_only_project_views_and_exports_but_does_not_write(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                                tmp_path: Path) -> None:
    project = build_project(tmp_path / "w.winnow")
    (first, *_rest) = make_session(project, tmp_path / "files", "likert", name="ro")
    session = RatingSession.open(first)
    session.set_rater("Ann")
    task = session.next_task()
    session.submit(task.task_id, simple_answer(task), time_ms=4000)
    session.close()
    merge_files(project, [first])
    project.close()
    assert main_window.open_project(tmp_path / "w.winnow", readonly=True)
    page = _page(main_window)
    assert "Read-only" in page.info.text() and "w.winnow" in page.info.text()
    for action in (page.act_outputs, page.act_new, page.act_merge):
        assert not action.isEnabled() and not _button(page, action).isEnabled(), action.text()
    assert page.act_export.isEnabled() and page.act_rate.isEnabled()
    assert page.sessions.rowCount() == 1
    assert page.export("ro", tmp_path / "ro.csv") is not None
    assert (tmp_path / "ro.csv").read_text(encoding="utf-8").startswith("rater,")
    main_window.runner.shutdown()
    main_window.close_project()


def test_a_folder_without_model_folders_says_what_to_pick(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                          tmp_path: Path) -> None:
    """A new user picks one model's folder (loose images, no model subfolders): the box
    says nothing was found and what to pick, not "Model outputs imported: 0 imported"."""
    build_project(tmp_path / "w.winnow").close()
    assert main_window.open_project(tmp_path / "w.winnow")
    page = _page(main_window)
    loose = tmp_path / "my-model"
    loose.mkdir()
    (loose / "readme.txt").write_text("outputs of my model")
    job = page.import_outputs(loose)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: getattr(page, "last_box", None) is not None, timeout=5_000)
    box = page.last_box
    assert box.windowTitle() == "No model outputs found"
    assert box.text().startswith("my-model holds no model folders, so nothing was imported")
    assert "OUTPUTS/my-model/demo-001.png" in box.text()
    box.close()
    main_window.runner.shutdown()
    main_window.close_project()


def test_every_count_column_says_what_it_counts(main_window, qtbot,  # type: ignore[no-untyped-def]
                                               tmp_path: Path) -> None:
    """"Early answers", "Changed", "Judgments merged" (which can exceed Tasks): a new
    user hovering a header learns what it counts."""
    build_project(tmp_path / "w.winnow").close()
    assert main_window.open_project(tmp_path / "w.winnow")
    page = _page(main_window)
    for table in (page.sessions, page.summary):
        titles = {table.horizontalHeaderItem(c).text(): table.horizontalHeaderItem(c).toolTip()
                  for c in range(table.columnCount())}
        for title, tip in titles.items():
            if title not in ("Session", "Protocol", "Created", "File"):
                assert tip, f"{title} has no tooltip"
    tip = page.sessions.horizontalHeaderItem(4).toolTip()
    assert "exceed Tasks" in tip
    main_window.close_project()


def test_export_with_no_session_yet_says_how_to_get_one(main_window, qtbot,  # type: ignore[no-untyped-def]
                                                        tmp_path: Path, monkeypatch) -> None:
    """Export Results… in a project without sessions asked to "Select a session first"
    from an empty list; it says how a session comes about instead."""
    messages: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window.context, "message", lambda t, x: messages.append((t, x)))
    monkeypatch.setattr(main_window.context, "refuse", lambda t, x: messages.append((t, x)))
    build_project(tmp_path / "w.winnow").close()
    assert main_window.open_project(tmp_path / "w.winnow")
    page = _page(main_window)
    assert page.sessions.rowCount() == 0
    page.choose_export()
    assert messages[-1][0] == "Export results"
    assert messages[-1][1].startswith("No rating session yet") and "New Session" in \
        messages[-1][1]
    main_window.close_project()
