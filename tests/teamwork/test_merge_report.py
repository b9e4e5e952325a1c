"""Merge Returned Work… in the real main window: when conflicts wait, the merge report
shows in the Resolve Conflicts window, and no window-modal message box opens beside it
(such a box blocked the conflicts window, its keys and its buttons, while itself hidden
behind it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from core.teamwork.conflicts import list_conflicts  # noqa: E402
from core.teamwork.values import read_values  # noqa: E402
from tests.teamwork.team_helpers import Curator, make_project, package_path, split  # noqa: E402


def _returned(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The lead's project (closed) and two packages that disagree on s1's prompt."""
    project = make_project(tmp_path)
    report = split(project, tmp_path / "packages")
    project.close()
    alice, bob = package_path(report, "Alice"), package_path(report, "Bob")
    with Curator(alice) as c:
        c.prompt("s1", "Turn the cat green")
        c.label("s2", "Benchmark")
    with Curator(bob) as c:
        c.prompt("s1", "Make the cat green please")
    return tmp_path / "lead.winnow", alice, bob


def test_merge_with_conflicts_reports_in_the_conflicts_window_which_stays_usable(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    lead, alice, bob = _returned(tmp_path)
    junk = tmp_path / "junk.winnow"
    junk.write_text("not a package")
    assert main_window.open_project(lead)
    team = main_window.show_workspace("curate").page_actions.team
    job = team.merge([alice, junk, bob])
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    assert job.outcome == "done", job.error
    qtbot.waitUntil(lambda: team.dialog is not None, timeout=5_000)
    window = team.dialog
    assert window.isVisible() and window.list.count() == 1
    assert QApplication.activeModalWidget() is None  # nothing blocks the conflicts window
    report = window.report.text()
    assert window.report.isVisible()
    assert "lead-alice.winnow (Alice): 2 change(s) merged" in report
    assert "lead-bob.winnow (Bob)" in report and "1 conflict(s) to resolve" in report
    assert "junk.winnow" in report and "refused" in report  # a refused file is named
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.keyClick(window, Qt.Key.Key_2)  # take Bob's value, by key
    project = main_window.context.project
    assert read_values(project.conn, ["s1"])["s1"]["prompt"] == "Make the cat green please"
    assert list_conflicts(project) == []
    assert window.empty.isVisible() and "wait" not in window.report.text()  # not stale
    window.close()


def test_merge_without_conflicts_still_says_what_was_merged(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    lead, alice, _bob = _returned(tmp_path)
    assert main_window.open_project(lead)
    team = main_window.show_workspace("curate").page_actions.team
    shown: list[str] = []
    main_window.info_shown.connect(shown.append)  # a success: the information box (ADR 222)
    job = team.merge([alice])
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: bool(shown), timeout=5_000)
    assert "lead-alice.winnow (Alice): 2 change(s) merged" in shown[-1]
    assert team.dialog is None  # no conflicts: no conflicts window
    assert _icons(main_window) == {"Work merged": QMessageBox.Icon.Information}


def test_work_shared_is_reported_with_the_information_icon(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    """ADR 222: "Work shared" and "Work merged" reported success with the warning icon."""
    make_project(tmp_path).close()
    assert main_window.open_project(tmp_path / "lead.winnow")
    team = main_window.show_workspace("curate").page_actions.team
    warned: list[str] = []
    main_window.error_shown.connect(warned.append)
    job = team.share(tmp_path / "out", ["Alice", "Bob"])
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: bool(_icons(main_window)), timeout=5_000)
    assert _icons(main_window) == {"Work shared": QMessageBox.Icon.Information}
    assert warned == []


def _icons(window: Any) -> dict[str, QMessageBox.Icon]:
    return {w.windowTitle(): w.icon() for w in window.findChildren(QMessageBox)
            if w.isVisible()}


def test_a_cancelled_merge_says_so_and_what_to_do_not_merge_failed(
        main_window: Any, qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    import threading

    import core.teamwork.merge as merge_module

    lead, alice, bob = _returned(tmp_path)
    merged_one, gate = threading.Event(), threading.Event()
    real = merge_module.merge_package

    def held(project: Any, path: Any) -> Any:
        result = real(project, path)
        merged_one.set()
        gate.wait(10)
        return result

    monkeypatch.setattr(merge_module, "merge_package", held)
    assert main_window.open_project(lead)
    team = main_window.show_workspace("curate").page_actions.team
    shown: list[str] = []
    main_window.error_shown.connect(shown.append)
    job = team.merge([alice, bob])
    qtbot.waitUntil(merged_one.is_set, timeout=30_000)
    row = main_window.jobs_panel.rows[-1]
    row.cancel.click()  # the user cancels after Alice's package went in
    gate.set()
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    assert job.outcome == "cancelled"
    qtbot.wait(50)
    boxes = [w.windowTitle() for w in QApplication.topLevelWidgets()
             if isinstance(w, QMessageBox) and w.isVisible()]
    assert boxes == [] and shown == [], (boxes, shown)  # a cancel is not a failure
    status = main_window.statusBar().currentMessage()
    assert "cancelled" in status and "merged whole or not at all" in status
    assert "again" in status  # what to do next
    project = main_window.context.project
    assert read_values(project.conn, ["s2"])["s2"]["quality"] == "Benchmark"  # kept
