"""File → New Project… (Ctrl+N) never replaces a file; Import with no project offers one
(issue #14 item 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QMessageBox  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.store import Project  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


def _answer_save(monkeypatch, path: Path | str) -> list[dict]:  # type: ignore[no-untyped-def]
    asked: list[dict] = []

    def fake(parent, caption, directory, filter, options=None):  # type: ignore[no-untyped-def]  # noqa: A002
        asked.append({"caption": caption, "options": options})
        return str(path), filter

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    return asked


def test_ctrl_n_creates_an_empty_project_and_opens_it(main_window: MainWindow, qtbot,
                                                      tmp_path: Path, monkeypatch) -> None:
    asked = _answer_save(monkeypatch, tmp_path / "study")  # typed without the suffix
    qtbot.keyClick(main_window, Qt.Key.Key_N, CTRL)
    assert asked and asked[0]["caption"] == "New project"
    # the dialog must not ask "replace?": Winnow refuses instead (below)
    assert asked[0]["options"] & QFileDialog.Option.DontConfirmOverwrite
    assert main_window.project is not None
    assert main_window.project.path == tmp_path / "study.winnow"
    assert main_window.project.counts()["samples"] == 0
    assert "study.winnow" in main_window.windowTitle()


@pytest.mark.parametrize("kind", ["project", "other file", "symlink"])
def test_an_existing_name_is_refused_and_left_alone(main_window: MainWindow, qtbot,
                                                    tmp_path: Path, monkeypatch,
                                                    kind: str) -> None:
    target = tmp_path / "taken.winnow"
    if kind == "project":
        with Project.create(target) as p:
            p.conn.execute("INSERT INTO project_meta(key, value) VALUES ('mine', 'yes')")
    elif kind == "other file":
        target.write_bytes(b"someone's notes")
    else:
        os.symlink(tmp_path / "elsewhere.winnow", target)  # dangling: sqlite would create it
    before = target.read_bytes() if target.exists() else None
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    _answer_save(monkeypatch, target)
    assert not main_window.projects.new_project()
    assert main_window.project is None
    assert "already exists" in messages[-1] and "taken.winnow" in messages[-1]
    assert "never replaces" in messages[-1]
    if before is not None:
        assert target.read_bytes() == before
    assert not (tmp_path / "elsewhere.winnow").exists()


def test_a_full_disk_is_a_message_naming_the_file(main_window: MainWindow, tmp_path: Path,
                                                  monkeypatch) -> None:
    import errno

    from app import window_project

    def full(path):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(window_project.Project, "create", staticmethod(full))
    messages: list[str] = []
    main_window.error_shown.connect(messages.append)
    _answer_save(monkeypatch, tmp_path / "p.winnow")
    assert not main_window.projects.new_project()
    assert "p.winnow" in messages[-1] and "No space left" in messages[-1]
    assert main_window.project is None


def test_import_without_a_project_offers_to_create_one(main_window: MainWindow, qtbot,
                                                      tmp_path: Path, monkeypatch) -> None:
    src = tmp_path / "posts.jsonl"
    src.write_text("\n".join(json.dumps({"id": f"p{k}", "text": f"post {k}"})
                             for k in range(3)) + "\n")
    _answer_save(monkeypatch, tmp_path / "fresh.winnow")
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(src), "")))
    assert main_window.act_import.isEnabled()
    qtbot.keyClick(main_window, Qt.Key.Key_I, CTRL)
    box = main_window._dialogs[-1]
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert "none is open" in box.text()
    new = next(b for b in box.buttons() if b.text() == "New Project…")
    assert any(b.text() == "Open Project…" for b in box.buttons())
    new.click()
    assert main_window.project is not None and main_window.project.path.name == "fresh.winnow"
    job = main_window.runner.jobs[-1]  # the import went on into the new project
    assert job.state.title == "Import posts.jsonl"
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: main_window.project.counts()["posts"] == 3, timeout=5_000)


def test_import_is_off_for_a_read_only_project(main_window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "p.winnow"
    Project.create(path).close()
    assert main_window.open_project(path, readonly=True)
    assert not main_window.act_import.isEnabled()
    main_window.close_project()
    assert main_window.act_import.isEnabled()
