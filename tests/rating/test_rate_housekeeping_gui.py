"""Rate workspace (issue 14 item 10): choose a session's samples in the design dialog;
delete / archive / restore a session; open its folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from rating_helpers import build_project, make_session, simple_answer

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from core.curate.commands import SetField, SetTag, UndoStack  # noqa: E402
from core.rating.merge import merge_files  # noqa: E402
from core.rating.session_file import RatingSession  # noqa: E402
from core.selection import SampleFilter  # noqa: E402


@pytest.fixture
def page(main_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    project = build_project(tmp_path / "w.winnow")
    stack = UndoStack(project)
    stack.push(SetField(["s001"], "quality", "Trash"))
    stack.push(SetTag(["s002", "s004"], "shortlist"))
    make_session(project, tmp_path / "fresh", "ranking", name="fresh")
    (answered, _other) = make_session(project, tmp_path / "study", "likert", name="study")
    session = RatingSession.open(answered)
    session.set_rater("Ann")
    task = session.next_task()
    session.submit(task.task_id, simple_answer(task), time_ms=4000)
    session.close()
    merge_files(project, [answered])
    project.close()
    assert main_window.open_project(tmp_path / "w.winnow")
    main_window.nav.setCurrentRow(2)
    rate = main_window.pages["rate"]
    opened: list[str] = []
    rate.open_url = lambda url: opened.append(url.toLocalFile()) or True
    rate.opened = opened
    yield rate
    main_window.runner.shutdown()
    main_window.close_project()


def _names(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [page.sessions.item(r, 0).text() for r in range(page.sessions.rowCount())]


def _select(page, name: str) -> None:  # type: ignore[no-untyped-def]
    row = next(r for r in range(page.sessions.rowCount())
               if page.sessions.item(r, 0).data(Qt.ItemDataRole.UserRole) == name)
    page.sessions.selectRow(row)


def _confirm(page, qtbot) -> None:  # type: ignore[no-untyped-def]
    box = page.last_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    button = next(b for b in box.buttons()
                  if box.buttonRole(b) != QMessageBox.ButtonRole.RejectRole)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_delete_from_the_keyboard_asks_then_deletes_files(page, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert sorted(_names(page)) == ["fresh", "study"]
    _select(page, "fresh")
    assert page.act_delete.isEnabled() and page.act_folder.isEnabled()
    page.sessions.setFocus()
    qtbot.keyClick(page.sessions, Qt.Key.Key_Delete)
    assert "will be deleted" in page.last_box.text() and "2 unopened" in page.last_box.text()
    assert len(list((tmp_path / "fresh").glob("*.winnow-session"))) == 2  # nothing yet
    _confirm(page, qtbot)
    assert _names(page) == ["study"]
    assert list((tmp_path / "fresh").glob("*.winnow-session")) == []
    assert (tmp_path / "fresh").is_dir()


def test_a_session_with_judgments_is_archived_hidden_and_restorable(page, qtbot) -> None:  # type: ignore[no-untyped-def]
    _select(page, "study")
    page.ask_delete()
    assert "archived" in page.last_box.text() and "1 merged judgment" in page.last_box.text()
    _confirm(page, qtbot)
    assert _names(page) == ["fresh"]
    page.show_archived.setChecked(True)
    assert "study  (archived)" in _names(page)
    _select(page, "study")
    assert page.act_restore.isEnabled() and not page.act_delete.isEnabled()
    page.act_restore.trigger()
    page.show_archived.setChecked(False)
    assert sorted(_names(page)) == ["fresh", "study"]


def test_open_folder(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _select(page, "study")
    page.act_folder.trigger()
    assert page.opened == [str(tmp_path / "study")]


def test_design_dialog_takes_samples_from_any_source(page, qtbot) -> None:  # type: ignore[no-untyped-def]
    page.context.set_selection(SampleFilter(split="image-to-image"))
    dialog = page.new_session()
    assert dialog.source.currentData() == "filter"
    assert dialog.sample_ids == ["s001", "s003", "s005"]
    assert dialog.samples.text().startswith("3 samples")
    assert not dialog.tag.isVisibleTo(dialog) and not dialog.ids.isVisibleTo(dialog)
    dialog.source.setCurrentIndex(dialog.source.findData("benchmark"))
    assert dialog.sample_ids == ["s000", "s002", "s003", "s004", "s005"]
    dialog.source.setCurrentIndex(dialog.source.findData("tag"))
    assert dialog.tag.isVisibleTo(dialog)
    dialog.tag.setCurrentIndex(dialog.tag.findText("shortlist"))
    assert dialog.sample_ids == ["s002", "s004"]
    dialog.source.setCurrentIndex(dialog.source.findData("ids"))
    dialog.ids.setPlainText("s005 s000 s999")
    assert dialog.sample_ids == ["s005", "s000"] and "no sample s999" in dialog.samples.text()
    dialog.name.setText("picked")
    dialog.out_dir.setText(str(Path(page.context.project.path).parent / "picked"))
    dialog._accept()
    assert dialog.isVisible() and "no sample s999" in dialog.error.text()  # refused
    dialog.ids.setPlainText("s005 s000")
    dialog.gold_rate.setValue(0)
    dialog._accept()
    assert not dialog.isVisible() and dialog.result_design.sample_ids == ("s005", "s000")


def test_a_hidden_rate_page_does_not_recount_on_every_search_keystroke(page, qtbot,  # type: ignore[no-untyped-def]
                                                                       monkeypatch) -> None:
    window = page.window()
    window.nav.setCurrentRow(0)  # Curate on screen, Rate hidden
    calls: list[int] = []
    original = page.refresh
    monkeypatch.setattr(page, "refresh", lambda: (calls.append(1), original()))
    for text in ("m", "ma", "mak", "make"):
        page.context.set_selection(SampleFilter(text=text))
    assert calls == []
    window.nav.setCurrentRow(list(window.pages).index("rate"))
    assert calls == [1] and "6 samples;" in page.info.text()


def test_opening_another_project_never_summarises_a_session_it_lacks(
        page, main_window, tmp_path: Path, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The sessions table is rewritten row by row when another project opens; a summary
    asked for half-way read the previous project's session name and raised "no rating
    session named …" (found by the monkey test)."""
    other = build_project(tmp_path / "other.winnow")
    for name in ("alpha", "beta", "gamma"):
        make_session(other, tmp_path / name, "ranking", name=name)
    other.close()
    for name in ("study", "fresh"):
        _select(page, name)
        assert main_window.open_project(tmp_path / "other.winnow")
        assert sorted(_names(page)) == ["alpha", "beta", "gamma"]
        assert page.selected_session() in ("alpha", "beta", "gamma")
        assert page.summary_title.text() == f"Raters of {page.selected_session()}"
        assert main_window.open_project(tmp_path / "w.winnow")


def test_a_session_gone_behind_the_table_is_not_an_error(page, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A session removed while the table still lists it (another part of the app, a job
    finishing) is dropped from the table when selected, not raised as an error."""
    from core.rating.session_admin import remove_session

    _select(page, "study")
    remove_session(page.context.project, "fresh")  # the table still lists it
    _select(page, "fresh")
    assert page.summary_title.text() == "Raters"
    qtbot.waitUntil(lambda: "fresh" not in _names(page))
    assert page.selected_session() == "study" or page.selected_session() is None
