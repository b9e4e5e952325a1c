"""The Jobs panel's line for an import (ADR 222): it counted the lines that failed but
not the images, so an import whose every image was lost read "Finished"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from core.store import Project  # noqa: E402


def _run(window: Any, qtbot: Any, src: Path) -> Any:
    job = window.import_file(src)
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    row = window.jobs_panel.rows[-1]
    qtbot.waitUntil(lambda: row.status.text().startswith(("Finished", "Failed")),
                    timeout=5_000)  # the line is written when the panel hears the end
    return job, row


def test_the_jobs_line_counts_failed_lines_and_failed_images(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    Project.create(tmp_path / "p.winnow").close()
    assert main_window.open_project(tmp_path / "p.winnow")
    src = tmp_path / "posts.jsonl"
    lines = [json.dumps({"id": "a", "text": "one", "image_urls": ["gone-1.png"]}),
             json.dumps({"id": "b", "text": "two", "image_urls": ["gone-2.png"]}),
             "{not json", "[1, 2]", json.dumps({"id": "c", "text": 5}),
             json.dumps({"id": "d", "text": "four"})]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    job, row = _run(main_window, qtbot, src)
    report = job.future.result()
    assert report["images"]["failed"] == 2 and len(report["errors"]) == 3
    assert job.state.failures == [
        "posts.jsonl: 3 line(s) could not be imported, 2 image(s) could not be stored"]
    assert row.verdict() == "partial"
    assert "3 line(s) could not be imported, 2 image(s) could not be stored" \
        in row.status.text()


def test_lost_images_alone_no_longer_read_finished(
        main_window: Any, qtbot: Any, tmp_path: Path) -> None:
    Project.create(tmp_path / "p.winnow").close()
    assert main_window.open_project(tmp_path / "p.winnow")
    src = tmp_path / "posts.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "one", "image_urls": ["gone.png"]}) + "\n",
                   encoding="utf-8")
    job, row = _run(main_window, qtbot, src)
    assert job.state.failures == ["posts.jsonl: 1 image(s) could not be stored"]
    assert row.verdict() == "partial" and row.status.text() != "Finished"
