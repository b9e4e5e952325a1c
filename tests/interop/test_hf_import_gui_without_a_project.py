"""File → Import Hugging Face Dataset… with no project open offers a new project, and
then asks for the dataset *folder*: it went on to the JSON Lines file picker (the other
import's continuation), so a new user who chose a dataset folder got "Import posts or
samples" and a filter for *.jsonl."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyarrow")

pytestmark = pytest.mark.gui


def test_import_hf_without_a_project_creates_one_then_asks_for_the_folder(
        main_window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pyarrow as pa
    import pyarrow.parquet as pq
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["a cat", "a dog"]}), folder / "train.parquet")
    target = tmp_path / "new.winnow"
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: asked.append("file") or ("", "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: asked.append("folder") or str(folder)))
    assert main_window.project is None
    main_window.act_import_hf.trigger()
    box = next(w for w in main_window._dialogs if isinstance(w, QMessageBox))
    assert "dataset" in box.text() and "Posts" not in box.text()
    new = next(b for b in box.buttons() if b.text().startswith("New Project"))
    new.click()
    qtbot.waitUntil(lambda: bool(asked), timeout=5_000)
    assert asked == ["folder"]
    job = main_window.jobs_panel.rows[-1].job
    qtbot.waitUntil(lambda: job.outcome != "running", timeout=60_000)
    assert main_window.project.counts()["samples"] == 2
    assert main_window.project.path == target
