"""A region whose box was set to text with sqlite3, in the Anonymize workspace through
pytest-qt (ADR 211): Detect skips that photo only, naming the photo and the region and
keeping the row; the photo still opens, the region is listed (not drawn) and can be
deleted."""


from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytestmark = pytest.mark.gui

from anon_helpers import quadrant_image  # noqa: E402
from PIL import Image  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from qt_helpers import anonymize_page  # noqa: E402

from app.main_window import MainWindow  # noqa: E402
from core.imaging import photos as repo  # noqa: E402
from core.imaging.boxes import Detection  # noqa: E402
from core.jobs import Job  # noqa: E402
from core.store import Project  # noqa: E402

FACE = Detection("face", 400, 20, 40, 50, 0.7, "centerface")




@pytest.mark.parametrize("source", ["manual", "centerface"])
def test_a_region_set_to_text_with_sqlite3_skips_detect_for_that_photo_only(
        main_window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path, messages: list[tuple[str, str]], source: str) -> None:
    sources = []
    for k, name in enumerate(("edited.png", "fine.png")):
        sources.append(tmp_path / name)
        Image.fromarray(quadrant_image(640, 427 + k)).save(sources[-1])
    path = tmp_path / "photos.winnow"
    with Project.create(path) as project:
        edited, fine = (repo.import_photo(project, p)[0] for p in sources)
        region = repo.add_region(project, edited, kind="face", x=10, y=10, w=50, h=50,
                                 source=source)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE photo_regions SET x = 'left of the door' WHERE id = ?", (region,))
    conn.close()
    assert main_window.open_project(path)
    page = anonymize_page(main_window, monkeypatch, [FACE])
    job: Job | None = page.jobs.detect_all()
    assert job is not None
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=30_000)
    qtbot.wait(50)
    assert job.outcome == "done", job.error
    # the other photo was detected in; the edited one was left as it was, row and all
    assert [r.source for r in repo.regions(main_window.project, fine)] == ["centerface"]
    kept = repo.regions(main_window.project, edited)
    assert [(r.id, r.x) for r in kept] == [(region, "left of the door")]
    assert repo.get_photo(main_window.project, edited).detected_at is None
    assert len(messages) == 1, messages
    title, text = messages[0]
    assert "edited.png" in text and f"#{region}" in text and "x" in text
    assert "left of the door" in text and "fine.png" not in text
    # the photo still opens: the region is listed (not drawn), can be selected, the After
    # view renders, and the region can be deleted from the list
    row = next(i for i in range(page.list.count())
               if page.list.item(i).data(Qt.ItemDataRole.UserRole) == edited)
    page.list.setCurrentRow(row)
    qtbot.waitUntil(lambda: page.viewer.photo is not None and page.viewer.photo.id == edited)
    panel = page.panel
    assert "not a number" in panel.region_list.item(0).text()
    assert region not in page.canvas.region_items
    panel.region_list.setCurrentRow(0)
    page.viewer.set_after(True)
    page.viewer.set_after(False)
    panel.delete_button.click()
    qtbot.waitUntil(lambda: repo.regions(main_window.project, edited) == [])
