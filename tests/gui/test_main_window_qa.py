"""Main-window QA: bad paths, Close Project (Ctrl+W), remembered workspace, honest import report."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.store import Project  # noqa: E402
from ui.import_report import ImportReportDialog  # noqa: E402
from ui.workspaces import WORKSPACES  # noqa: E402


def test_a_folder_is_refused_with_a_message_not_a_crash(main_window: MainWindow,
                                                        tmp_path: Path) -> None:
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    folder = tmp_path / "photos"
    folder.mkdir()
    assert not main_window.open_path(folder)  # e.g. `winnow photos/` or a recent entry
    assert "photos" in messages[-1] and "is a folder" in messages[-1]
    assert main_window.project is None
    assert not list(folder.iterdir())  # nothing was created inside it


def test_close_project_from_the_file_menu_with_ctrl_w(main_window: MainWindow, qtbot,
                                                      tmp_path: Path) -> None:
    file_menu = main_window.menuBar().actions()[0].menu()
    labels = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "Close Project" in labels
    assert not main_window.act_close.isEnabled()
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    assert main_window.open_project(path)
    assert main_window.act_close.isEnabled()
    qtbot.keyClick(main_window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert main_window.project is None
    assert main_window.windowTitle() == "Winnow — no project"
    assert not main_window.act_close.isEnabled()
    with Project.open(path) as again:  # the lock was released: it opens for writing
        assert not again.readonly


def test_last_workspace_comes_back(main_window: MainWindow, qtbot) -> None:
    rate = [w.key for w in WORKSPACES].index("rate")
    qtbot.keyClick(main_window, Qt.Key.Key_1 + rate, Qt.KeyboardModifier.ControlModifier)
    main_window.close()

    second = MainWindow()
    qtbot.addWidget(second)
    try:
        assert second.nav.currentRow() == rate and second.stack.currentIndex() == rate
    finally:
        second.runner.shutdown()


def test_import_of_a_picture_says_what_it_is_and_nothing_was_imported(
        main_window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    assert main_window.open_project(path)
    shown: list[str] = []
    main_window.error_shown.connect(shown.append)
    fake = tmp_path / "photo.jsonl"  # a PNG renamed .jsonl: named once (ADR 195)
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    job = main_window.import_file(fake)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: bool(shown), timeout=5_000)
    assert "photo.jsonl" in shown[0] and "is a PNG image, not JSON Lines" in shown[0]
    assert "nothing was imported" in shown[0]
    assert shown[0].count("photo.jsonl") == 1  # the file is named once
    assert not any(isinstance(w, ImportReportDialog) for w in main_window._dialogs)


def test_import_of_a_file_of_bad_lines_says_nothing_was_imported(main_window: MainWindow,
                                                                 qtbot, tmp_path: Path) -> None:
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    assert main_window.open_project(path)
    fake = tmp_path / "notes.jsonl"  # text, but no line is a JSON object
    fake.write_text("shopping list\nmilk, eggs\n{not json\n", encoding="utf-8")
    job = main_window.import_file(fake)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog)
                                for w in main_window._dialogs), timeout=5_000)
    dialog = next(w for w in main_window._dialogs if isinstance(w, ImportReportDialog))
    text = dialog.summary.text()
    assert "Nothing in notes.jsonl could be imported" in text
    assert "Everything valid was imported" not in text
    assert dialog.line_table.rowCount() >= 1


def test_a_hidden_workspace_does_not_hold_the_window_wide(main_window: MainWindow,
                                                          qtbot, tmp_path: Path) -> None:
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    assert main_window.open_project(path)
    main_window.show_jobs()  # as after any import or run
    keys = [w.key for w in WORKSPACES]
    metrics = keys.index("metrics")
    qtbot.keyClick(main_window, Qt.Key.Key_1 + metrics, Qt.KeyboardModifier.ControlModifier)
    qtbot.wait(50)
    main_window.resize(1100, 700)  # the narrow window of a 1366×768 laptop
    qtbot.wait(50)
    assert (main_window.width(), main_window.height()) == (1100, 700)

    curate = main_window.pages["curate"]
    qtbot.keyClick(main_window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: main_window.centralWidget().width()
                    >= curate.minimumSizeHint().width())  # the shown page still fits


def test_a_job_started_after_shutdown_is_cancelled_and_quit_does_not_ask(
        main_window: MainWindow, qtbot) -> None:
    main_window.runner.shutdown()  # as in closeEvent, before the project closes
    ran: list[bool] = []
    done: list[str] = []
    # e.g. a workspace's debounce timer firing while the app quits
    job = main_window.start_job("Late", lambda state: ran.append(True),
                                lambda j: done.append(j.outcome))
    assert job.outcome == "cancelled" and not main_window.runner.active
    qtbot.waitUntil(lambda: done == ["cancelled"], timeout=5_000)
    main_window.close()  # nothing runs: no "jobs still running" question blocks it
    assert main_window.quit_box is None and not main_window.isVisible()
    assert ran == []


def test_a_missing_project_is_named_without_an_errno(main_window: MainWindow,
                                                     tmp_path: Path) -> None:
    """A recent project that was moved or deleted: the message names it and its path in
    words ("[Errno 2] No project at this path: '…'" was shown as it came)."""
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    gone = tmp_path / "moved away" / "gone.winnow"
    assert not main_window.open_project(gone)
    assert messages[-1] == f"gone.winnow: No project at this path ({gone})"
    assert main_window.project is None


def test_a_broken_session_file_is_refused_once_by_name(main_window: MainWindow,
                                                       tmp_path: Path) -> None:
    """File → Open (or ``winnow FILE``) of a damaged rater file: refused, so a scripted
    start does not wait for a rater window that never comes, and named once (it read
    "bad.winnow-session: bad.winnow-session is not a Winnow session file …")."""
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    bad = tmp_path / "bad.winnow-session"
    bad.write_bytes(b"junk" * 100)
    assert not main_window.open_path(bad)
    assert messages[-1].startswith("bad.winnow-session is not a Winnow session file")
    assert messages[-1].count("bad.winnow-session") == 1
    assert bad.read_bytes() == b"junk" * 100  # left as it was
