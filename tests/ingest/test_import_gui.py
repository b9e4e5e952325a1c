"""The app's private-network setting (issue 13 item 2): off by default, a checkable File
menu entry, remembered, and what the import actually uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from core.store import Project  # noqa: E402
from ui.import_report import ImportReportDialog  # noqa: E402

try:
    from .http_server import ImageServer
except ImportError:  # pragma: no cover - depends on the layout
    from http_server import ImageServer  # type: ignore[no-redef]

pytestmark = pytest.mark.gui


def _import(window, qtbot, src: Path) -> ImportReportDialog:  # type: ignore[no-untyped-def]
    window._dialogs.clear()
    job = window.import_file(src)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.waitUntil(lambda: any(isinstance(w, ImportReportDialog) for w in window._dialogs),
                    timeout=5_000)
    return next(w for w in window._dialogs if isinstance(w, ImportReportDialog))


def test_private_network_setting_is_off_then_allows_and_is_remembered(
        main_window, qtbot, tmp_path: Path, image_server: ImageServer) -> None:
    from app import settings as app_settings

    window = main_window
    action = window.act_private_net
    assert action.isCheckable() and not action.isChecked()
    assert action in window.menuBar().actions()[0].menu().actions()  # in the File menu
    Project.create(tmp_path / "p.winnow").close()
    assert window.open_project(tmp_path / "p.winnow")

    src = tmp_path / "posts.jsonl"
    src.write_text(json.dumps({"id": "p", "text": "t",
                               "image_urls": [image_server.url("/good.jpg")]}) + "\n")
    dialog = _import(window, qtbot, src)
    assert dialog.image_table.rowCount() == 1
    assert "--allow-private-network" in dialog.image_table.item(0, 2).text()
    assert image_server.hits["/good.jpg"] == 0

    action.trigger()  # the user ticks the menu entry
    assert action.isChecked() and app_settings.allow_private_network()
    src.write_text(json.dumps({"id": "q", "text": "t",
                               "image_urls": [image_server.url("/good.jpg")]}) + "\n")
    dialog = _import(window, qtbot, src)
    assert dialog.image_table.rowCount() == 0 and "1 stored" in dialog.summary.text()
    assert image_server.hits["/good.jpg"] == 1
    action.trigger()
    assert not app_settings.allow_private_network()
