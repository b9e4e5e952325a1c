"""A curator package in the real main window: File → Import Posts… and Import Hugging
Face Dataset… are refused before any file is asked for, naming the package and the
project to import into (they failed after the work with "IntegrityError: a curator
package cannot take new images", or a report saying "everything valid was imported")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from tests.teamwork.team_helpers import make_project, package_path, split  # noqa: E402


def _package(tmp_path: Path) -> Path:
    project = make_project(tmp_path)
    report = split(project, tmp_path / "packages")
    project.close()
    return package_path(report, "Alice")


def _counts(path: Path) -> tuple[int, int]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return (conn.execute("SELECT count(*) FROM posts").fetchone()[0],
                conn.execute("SELECT count(*) FROM samples").fetchone()[0])


def test_imports_into_a_package_are_refused_up_front_with_the_reason(
        main_window: Any, qtbot: Any, tmp_path: Path, monkeypatch: Any) -> None:
    from PySide6.QtWidgets import QFileDialog

    from core.interop.hf_import import import_hf

    package = _package(tmp_path)
    before = _counts(package)
    assert main_window.open_project(package)
    shown: list[str] = []
    main_window.error_shown.connect(shown.append)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *a, **k: asked.append("file") or ("", ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        lambda *a, **k: asked.append("folder") or "")
    main_window.menus.act_import.trigger()
    main_window.menus.act_import_hf.trigger()
    assert asked == []  # no file is asked for only to fail afterwards
    jsonl = tmp_path / "src" / next(p.name for p in (tmp_path / "src").glob("*.jsonl"))
    assert main_window.import_file(jsonl) is None
    assert main_window.import_file(tmp_path, importer=import_hf) is None
    assert len(shown) == 4
    for text in shown:
        assert "lead-alice.winnow is Alice's curator package" in text
        assert "takes no imports" in text and "lead.winnow" in text  # where to import
    assert not main_window.runner.active
    main_window.close_project()
    assert _counts(package) == before
